/// A span of the run during which a fault was injected, shaded on the time-series charts so a latency spike can
/// be read against its cause.
public struct FaultWindow: Sendable, Codable, Equatable {
    /// Seconds since the run started.
    public var fromSecond: Double
    public var toSecond: Double
    /// Short description, e.g. "push delay 200ms–2s, drop 2%".
    public var label: String

    public init(fromSecond: Double, toSecond: Double, label: String) {
        self.fromSecond = fromSecond
        self.toSecond = toSecond
        self.label = label
    }
}
