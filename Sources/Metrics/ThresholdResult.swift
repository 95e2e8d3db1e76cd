import Thresholds

/// The outcome of one threshold: the measured value next to the limit, so a CI log or JUnit failure reads
/// "measured 1234.000 ms, limit < 1s" without opening the report.
public struct ThresholdResult: Sendable, Equatable, Codable {
    public var threshold: Threshold
    /// Nil when nothing was measured (no samples, or a ratio whose denominator is 0); such a threshold fails,
    /// because a CI gate that passes on an empty run hides a broken run.
    public var measured: Double?
    /// The measured value in the limit's terms: `1234.000 ms`, `0.42%`, `17`.
    public var measuredText: String
    public var passed: Bool

    public init(threshold: Threshold, measured: Double?, measuredText: String, passed: Bool) {
        self.threshold = threshold
        self.measured = measured
        self.measuredText = measuredText
        self.passed = passed
    }

    /// One line for the verdict: `push_to_report.p99 < 1s: measured 1234.000 ms (FAIL)`.
    public var summary: String {
        "\(threshold.text): measured \(measuredText) (\(passed ? "pass" : "FAIL"))"
    }
}

/// The ratios thresholds and the report derive from counters. Each is nil when its denominator is 0.
///
/// - `deadline_miss_rate`: `push.deadline_missed` / `pushes.received.voip`.
/// - `errors.rate`: every `errors.*` counter / requests sent, where requests are `requests.sent` when the driver
///   counts them, otherwise every action started plus every registration attempt.
/// - `delivered_rate_ratio`: (`calls.started` − `calls.started_by_outside`) / (`calls.planned` +
///   `calls.not_started_at_stop`): below 1 the harness (or the device pool) did not deliver the planned
///   open-model arrival rate.
/// - `voip_without_call_rate`: `pushes.voip_without_call` / `pushes.received.voip`: VoIP pushes the app had to
///   report that carried no new call (a server defect; docs/LCK.md).
/// - `media.one_way_rate`: `media.one_way` / `media.calls`: calls with one-way audio (either end heard nothing
///   for the threshold; a fault's or not) among the calls carrying media (docs/MEDIA.md).
public struct RunRatios: Sendable, Equatable, Codable {
    public var deadlineMissRate: Double?
    public var errorsRate: Double?
    public var deliveredRateRatio: Double?
    /// Absent in summaries from before it existed.
    public var voipWithoutCallRate: Double?
    /// Absent in summaries from before it existed, and in runs without media.
    public var mediaOneWayRate: Double?

    public init(counters: [String: Int64]) {
        func c(_ name: String) -> Int64 { counters[name] ?? 0 }
        func ratio(_ numerator: Int64, _ denominator: Int64) -> Double? {
            denominator > 0 ? Double(numerator) / Double(denominator) : nil
        }
        deadlineMissRate = ratio(c(MetricName.pushDeadlineMissed), c(MetricName.pushesReceived("voip")))
        let errors = counters.filter { $0.key.hasPrefix(MetricName.errorsPrefix) }.values.reduce(0, +)
        var requests = c(MetricName.requestsSent)
        if requests == 0 {
            let started = "." + MetricName.ActionCounter.started.rawValue
            requests = counters.filter { $0.key.hasPrefix(MetricName.actionPrefix) && $0.key.hasSuffix(started) }
                .values.reduce(0, +) + c(MetricName.devicesRegistered) + c(MetricName.devicesRegisterFailed)
        }
        errorsRate = ratio(errors, requests)
        // Calls outside parties started were never planned: they are not part of the delivered rate.
        deliveredRateRatio = ratio(c(MetricName.callsStarted) - c(MetricName.callsStartedByOutside),
                                   c(MetricName.callsPlanned) + c(MetricName.callsNotStartedAtStop))
        voipWithoutCallRate = ratio(c(MetricName.pushesVoIPWithoutCall), c(MetricName.pushesReceived("voip")))
        mediaOneWayRate = ratio(c(MetricName.mediaOneWay), c(MetricName.mediaCalls))
    }

    public func value(_ ratio: Threshold.Ratio) -> Double? {
        switch ratio {
        case .deadlineMissRate: return deadlineMissRate
        case .errorsRate: return errorsRate
        case .deliveredRateRatio: return deliveredRateRatio
        case .voipWithoutCallRate: return voipWithoutCallRate
        case .mediaOneWayRate: return mediaOneWayRate
        }
    }
}

extension Threshold {
    /// Evaluates against run totals. `histograms` may hold flow-step metrics (`join.fulfillment@flow/step`).
    public func evaluate(histograms: [String: HdrHistogram], counters: [String: Int64]) -> ThresholdResult {
        let measured: Double?
        let text: String
        switch subject {
        case let .latency(metric, statistic):
            let scaled = ScaledFigure.all[metric]
            guard let histogram = histograms[scaled?.recorded ?? metric], !histogram.isEmpty else {
                measured = nil
                text = "no samples of \(metric)"
                break
            }
            switch statistic {
            case .percentile(let p): measured = Double(histogram.value(atPercentile: p))
            case .min: measured = Double(histogram.min)
            case .max: measured = Double(histogram.max)
            case .mean: measured = histogram.mean.rounded()
            case .count: measured = Double(histogram.totalCount)
            }
            if statistic == .count {
                text = Threshold.shortNumber(measured!)
            } else {
                text = scaled.map { $0.text(measured!) } ?? Threshold.millisText(measured!)
            }
        case .ratio(let ratio):
            measured = RunRatios(counters: counters).value(ratio)
            text = measured.map(Threshold.percentText) ?? "no data (denominator is 0)"
        case .counter(let name):
            measured = Double(counters[name] ?? 0)
            text = Threshold.shortNumber(measured!)
        }
        let passed = measured.map { comparison.holds($0, limit) } ?? false
        return ThresholdResult(threshold: self, measured: measured, measuredText: text, passed: passed)
    }

    /// Microseconds as `1234.567 ms`, by integer arithmetic (the figures the CSV and HTML show).
    public static func millisText(_ micros: Double) -> String {
        let value = Int64(micros.rounded())
        let magnitude = value.magnitude
        let fraction = String(magnitude % 1_000)
        return (value < 0 ? "-" : "") + "\(magnitude / 1_000)." + String(repeating: "0", count: 3 - fraction.count)
            + fraction + " ms"
    }

    /// A fraction as a percentage with up to four decimals: 0.00421 → `0.421%`.
    public static func percentText(_ fraction: Double) -> String {
        let scaled = (fraction * 100 * 10_000).rounded()
        guard scaled.isFinite, abs(scaled) < 9e15 else { return "\(fraction * 100)%" }
        let units = Int64(scaled)
        var decimals = String(units.magnitude % 10_000)
        decimals = String(repeating: "0", count: 4 - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return (units < 0 ? "-" : "") + "\(units.magnitude / 10_000)" + (decimals.isEmpty ? "" : "." + decimals) + "%"
    }
}
