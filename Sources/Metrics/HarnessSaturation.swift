import Thresholds

/// Where the harness stopped keeping up: the first window whose scheduler-lag percentile passed the limit, with the
/// rates around it, so the verdict can say "callstorm saturated at ~X calls/s from second N".
public struct HarnessSaturation: Sendable, Equatable, Codable {
    /// First second of the first window over the limit (report seconds, from the run's origin): figures from
    /// here on measure callstorm, not the target.
    public var fromSecond: Int
    /// The lag statistic measured in that window, in microseconds.
    public var lagMicros: Int64
    /// Calls started per second over that window (what callstorm managed to deliver).
    public var deliveredCallsPerSecond: Double
    /// Calls planned per second over that window (what the scenario asked for).
    public var plannedCallsPerSecond: Double
    /// Highest delivered rate of a window that kept the limit before it; nil when none did.
    public var lastGoodCallsPerSecond: Double?
    /// The harness's own CPU use in that window (percent of one core), when it was sampled.
    public var cpuPercent: Double?
    public var limit: HarnessLimit

    /// The rate to quote: the last rate the harness kept up with, or what it delivered while saturating.
    public var boundCallsPerSecond: Double { lastGoodCallsPerSecond ?? deliveredCallsPerSecond }

    /// One sentence for the banner, the terminal and junit.xml.
    public var summary: String {
        let lag = Threshold.millisText(Double(lagMicros))
        let limitText = Threshold.millisText(Double(limit.lagLimitMicros))
        var text = "callstorm saturated at ~\(CapacityResult.rateText(boundCallsPerSecond)) calls/s from second "
            + "\(fromSecond) (its own scheduler lag p\(Threshold.shortNumber(limit.percentile)) \(lag) over "
            + "\(limit.windowSeconds) s, limit \(limitText); planned \(CapacityResult.rateText(plannedCallsPerSecond))"
            + " calls/s, delivered \(CapacityResult.rateText(deliveredCallsPerSecond))"
        if let cpu = cpuPercent { text += ", harness CPU \(Int(cpu.rounded())) %" }
        return text + "): figures after that measure callstorm, not the target"
    }
}

public enum HarnessSaturationAnalysis {
    /// The histogram of planned → actual call starts, recorded by every worker.
    public static let lagMetric = MetricName.schedulerLag
    public static let plannedCounter = MetricName.callsPlanned
    public static let cpuGauge = MetricName.harnessCPUPercent

    /// Slides a window over the seconds that have lag samples and returns the first one whose statistic passes
    /// the limit, or nil when the harness kept up over the whole run.
    public static func analyze(_ recorder: Recorder, limit: HarnessLimit) -> HarnessSaturation? {
        let intervals = recorder.intervals[lagMetric] ?? [:]
        guard let first = intervals.keys.min(), let last = intervals.keys.max() else { return nil }
        let started = perSecond(recorder.counterSeries(CapacityAnalysis.rateCounter))
        let planned = perSecond(recorder.counterSeries(plannedCounter))
        let width = max(1, limit.windowSeconds)
        var lastGood: Double?
        for end in (first + width - 1)...max(first + width - 1, last) {
            let seconds = (end - width + 1)...end
            let histogram = CapacityAnalysis.merged(intervals, over: seconds)
            guard let histogram, histogram.totalCount >= Int64(limit.minimumSamples) else { continue }
            let delivered = rate(started, seconds)
            let lag = histogram.value(atPercentile: limit.percentile)
            guard lag > limit.lagLimitMicros else {
                lastGood = max(lastGood ?? 0, delivered)
                continue
            }
            return HarnessSaturation(fromSecond: seconds.lowerBound, lagMicros: lag, deliveredCallsPerSecond: delivered,
                                     plannedCallsPerSecond: rate(planned, seconds), lastGoodCallsPerSecond: lastGood,
                                     cpuPercent: cpu(recorder, seconds), limit: limit)
        }
        return nil
    }

    private static func perSecond(_ series: [(second: Int, value: Int64)]) -> [Int: Int64] {
        Dictionary(series.map { ($0.second, $0.value) }, uniquingKeysWith: +)
    }

    private static func rate(_ perSecond: [Int: Int64], _ seconds: ClosedRange<Int>) -> Double {
        Double(seconds.reduce(Int64(0)) { $0 + (perSecond[$1] ?? 0) }) / Double(seconds.count)
    }

    /// Mean of the CPU gauge over the window's seconds, when the harness sampler wrote it.
    private static func cpu(_ recorder: Recorder, _ seconds: ClosedRange<Int>) -> Double? {
        let values = recorder.gaugeSeries(cpuGauge).filter { seconds.contains($0.second) }.map(\.value)
        return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
    }
}
