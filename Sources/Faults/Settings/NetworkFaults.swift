/// Faults between devices and target, applied by the TCP fault proxy (Toxiproxy-style toxics).
public struct NetworkFaults: Sendable, Equatable {
    /// Toxic kind → attributes (`latency: 100ms` → ["latency": 100] in ms; probabilities as `toxicity`).
    public var toxics: [String: [String: Double]] = [:]
    /// Which way the toxics act: `downstream` (target → devices, the default, as Toxiproxy's), `upstream` or
    /// `both`.
    public var direction: String = "downstream"
    /// Share of connections each toxic acts on, decided per connection from the seed (`reset` carries its own).
    public var probability: Double = 1
    /// `connections: fresh` (the default): inside the window every device request opens its own connection, as
    /// phones each have their own, so a per-connection probability is a per-request one. `pooled` keeps the
    /// workers' shared keep-alive connections (few, long-lived: a toxic hits all requests on the ones it picks).
    public var freshConnections = true

    public init(toxics: [String: [String: Double]] = [:], direction: String = "downstream", probability: Double = 1,
                freshConnections: Bool = true) {
        self.toxics = toxics
        self.direction = direction
        self.probability = probability
        self.freshConnections = freshConnections
    }
}
