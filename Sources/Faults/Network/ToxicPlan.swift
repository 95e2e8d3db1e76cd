/// One toxic as a network window asks for it, in the fault proxy's names and units but without the proxy: the
/// Faults module decides what goes on a proxy, FaultControl hands it over as FaultProxy's `ToxicSpec` (a field for
/// field copy), so nothing that decides faults links the proxy's sockets.
public struct ToxicPlan: Sendable, Equatable {
    /// Which way through a proxied connection the toxic acts (FaultProxy's `ToxicDirection`, case for case).
    public enum Direction: String, Sendable, Equatable, CaseIterable {
        /// Client → server: what callstorm's devices send to the target.
        case upstream
        /// Server → client: what the target answers.
        case downstream
        case both
    }

    /// `w<window>.<kind>`, unique among one proxy's toxics (`NetworkPlan.toxicName`).
    public var name: String
    /// The proxy's toxic kind (`latency`, `reset_peer`).
    public var kind: String
    public var direction: Direction
    /// Share of connections it acts on, decided per connection by the proxy from its seed.
    public var toxicity: Double
    /// The toxicity grows from 0 over this long after the toxic goes on (the window's ramp).
    public var rampNanos: UInt64 = 0
    /// The toxic's numbers, in the proxy's names (`latency`, `rate`, `average_size`).
    public var attributes: [String: Double]

    public init(name: String, kind: String, direction: Direction, toxicity: Double, attributes: [String: Double]) {
        self.name = name
        self.kind = kind
        self.direction = direction
        self.toxicity = toxicity
        self.attributes = attributes
    }
}
