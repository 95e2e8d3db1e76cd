/// A span of the run during which a fault was injected, shaded on the time-series charts so a latency spike can
/// be read against its cause.
public struct FaultSpan: Sendable, Codable, Equatable {
    /// Seconds since the run started.
    public var fromSecond: Double
    public var toSecond: Double
    /// Short description, e.g. "push delay 200ms–2s, drop 2%".
    public var label: String
    /// What the window was set to do, in the scenario's words (`push: delay 200ms, drop 10%`).
    public var what: String?
    /// What it did: injected faults by kind (`push.dropped` → 54), from the fault log.
    public var injected: [String: Int]?

    public init(fromSecond: Double, toSecond: Double, label: String, what: String? = nil,
                injected: [String: Int]? = nil) {
        self.fromSecond = fromSecond
        self.toSecond = toSecond
        self.label = label
        self.what = what
        self.injected = injected
    }
}
