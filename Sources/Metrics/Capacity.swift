import Thresholds

/// One window of a capacity analysis: the rate the harness delivered in it and the statistic measured in it.
public struct CapacityWindow: Sendable, Equatable, Codable {
    /// Last second of the window (report seconds, from the run's origin).
    public var second: Int
    /// Calls started per second, averaged over the window.
    public var callsPerSecond: Double
    /// The statistic in microseconds over all samples of the window.
    public var valueMicros: Int64
    public var samples: Int64
    public var passed: Bool
    /// The window reaches into seconds where callstorm itself was saturated: not judged, shaded in the report.
    public var harnessBound: Bool = false
}

/// What a ramp showed: every window, the knee (the highest delivered rate whose window kept the limit before the
/// limit first broke), and where it broke.
public struct CapacityResult: Sendable, Equatable, Codable {
    public var spec: CapacitySpec
    public var windows: [CapacityWindow]
    /// Highest calls/s of a passing window before the first failing one; nil when no window passed first.
    public var kneeCallsPerSecond: Double?
    /// The first window that broke the limit, if any did (never one the harness was saturated in).
    public var broken: CapacityWindow?
    /// Where callstorm stopped keeping up, when it did: windows from there on measure callstorm, not the target,
    /// so neither a knee nor "not reached" is claimed above it.
    public var harness: HarnessSaturation?

    /// One sentence for the report and the terminal.
    public var summary: String {
        let limit = spec.limit.text
        if broken == nil, let harness {
            let top = windows.filter { $0.passed && !$0.harnessBound }.map(\.callsPerSecond).max()
            let held = top.map { "\(limit) held up to \(Self.rateText($0)) calls/s, then " } ?? ""
            return "harness-bound at \(Self.rateText(harness.boundCallsPerSecond)) calls/s from second "
                + "\(harness.fromSecond): \(held)callstorm's own scheduler lag passed its limit, so the target's "
                + "knee was not measured; run callstorm on more cores or shards (--shard) to go higher"
        }
        guard let broken else {
            let top = windows.filter(\.passed).map(\.callsPerSecond).max()
            return top.map { "\(limit) held over every \(spec.windowSeconds) s window, up to "
                + "\(Self.rateText($0)) calls/s: the knee was not reached" }
                ?? "\(limit): no window had samples"
        }
        let measured = Threshold.millisText(Double(broken.valueMicros))
        let at = "broke at second \(broken.second) (\(Self.rateText(broken.callsPerSecond)) calls/s, \(measured))"
        guard let knee = kneeCallsPerSecond else { return "\(limit) \(at) before any window kept it" }
        return "knee at \(Self.rateText(knee)) calls/s: \(limit) held up to there and \(at)"
    }

    static func rateText(_ rate: Double) -> String {
        let tenths = (rate * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int64(tenths / 10)) : String(tenths / 10)
    }
}

public enum CapacityAnalysis {
    /// Counter whose per-second series is the delivered rate.
    public static let rateCounter = MetricName.callsStarted

    /// Slides a window of `spec.windowSeconds` over the seconds in which calls started, one second at a time,
    /// and judges the statistic over each window's samples. Windows with fewer than `minimumSamples` are skipped.
    ///
    /// With `harness`, windows that reach the second callstorm saturated are marked harness-bound and not judged:
    /// the knee is looked for below that point only, and "not reached" becomes "harness-bound".
    public static func analyze(_ recorder: Recorder, spec: CapacitySpec,
                               harness: HarnessSaturation? = nil) -> CapacityResult {
        var result = CapacityResult(spec: spec, windows: [], kneeCallsPerSecond: nil, broken: nil, harness: harness)
        guard let (metric, statistic) = spec.latency else { return result }
        let started = recorder.counterSeries(rateCounter)
        guard let first = started.first?.second, let last = started.last?.second else { return result }
        let perSecond = Dictionary(started.map { ($0.second, $0.value) }, uniquingKeysWith: +)
        let intervals = recorder.intervals[metric] ?? [:]
        let width = max(1, spec.windowSeconds)
        var passedBefore: Double?
        for end in (first + width - 1)...max(first + width - 1, last) {
            let seconds = (end - width + 1)...end
            let histogram = CapacityAnalysis.merged(intervals, over: seconds)
            guard let histogram, histogram.totalCount >= Int64(spec.minimumSamples) else { continue }
            let calls = seconds.reduce(Int64(0)) { $0 + (perSecond[$1] ?? 0) }
            let value = statisticValue(histogram, statistic)
            var window = CapacityWindow(second: end, callsPerSecond: Double(calls) / Double(width),
                                        valueMicros: value, samples: histogram.totalCount,
                                        passed: spec.limit.comparison.holds(Double(value), spec.limit.limit))
            window.harnessBound = harness.map { end >= $0.fromSecond } ?? false
            result.windows.append(window)
            if window.harnessBound { continue }
            if result.broken == nil {
                if window.passed {
                    passedBefore = max(passedBefore ?? 0, window.callsPerSecond)
                } else {
                    result.broken = window
                    result.kneeCallsPerSecond = passedBefore
                }
            }
        }
        return result
    }

    /// The per-second histograms of `seconds` added into one (seconds without samples skipped); nil when none had
    /// any. One sliding window of the capacity search and of the harness's own judgement.
    static func merged(_ intervals: [Int: SparseHistogram], over seconds: ClosedRange<Int>) -> SparseHistogram? {
        var histogram: SparseHistogram?
        for s in seconds {
            guard let h = intervals[s], !h.isEmpty else { continue }
            histogram = histogram.map { $0.adding(h) } ?? h
        }
        return histogram
    }

    static func statisticValue(_ histogram: SparseHistogram, _ statistic: Threshold.Statistic) -> Int64 {
        switch statistic {
        case .percentile(let p): return histogram.value(atPercentile: p)
        case .min: return histogram.min
        case .max: return histogram.max
        case .mean: return Int64(histogram.mean.rounded())
        case .count: return histogram.totalCount
        }
    }
}
