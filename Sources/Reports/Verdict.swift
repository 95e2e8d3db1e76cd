import Metrics

/// Whether the run met its SLOs, and if not, why — one human-readable reason per failed threshold.
public struct Verdict: Sendable, Codable, Equatable {
    public var passed: Bool
    public var reasons: [String]

    public init(passed: Bool, reasons: [String] = []) {
        self.passed = passed
        self.reasons = reasons
    }

    /// The verdict of a run: it passes when every threshold holds and nothing else failed it. A run that was
    /// interrupted or under-delivered its planned rate says so in `reasons`, failing only through thresholds
    /// (or `extraFailures`), so a scenario decides what CI must reject.
    public init(thresholds: [ThresholdResult], warnings: [String] = [], extraFailures: [String] = []) {
        let failed = thresholds.filter { !$0.passed }
        passed = failed.isEmpty && extraFailures.isEmpty
        reasons = extraFailures + failed.map(\.summary) + warnings
        if thresholds.isEmpty, extraFailures.isEmpty {
            reasons.append("no thresholds set (add an 'slo:' section to the scenario to gate on results)")
        }
    }
}
