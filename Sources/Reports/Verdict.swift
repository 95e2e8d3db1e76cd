/// Whether the run met its SLOs, and if not, why — one human-readable reason per failed threshold.
public struct Verdict: Sendable, Codable, Equatable {
    public var passed: Bool
    public var reasons: [String]

    public init(passed: Bool, reasons: [String] = []) {
        self.passed = passed
        self.reasons = reasons
    }
}
