/// `observe:`: the channels a device learns its conversations' state from, besides responses to its own requests
/// and pushes (which it always reads). Polling calls the mapped `get` while a flow waits on something it cannot
/// otherwise see (connected, a remote end) and once for each conversation's final view; a WebSocket channel
/// (its own issue) will feed the same observation seam.
public struct Observation: Sendable, Equatable {
    /// The polling interval (each poll jittered ±50 % with the call's seeded generator); nil polls never.
    public var pollNanos: UInt64?

    public init(pollNanos: UInt64? = nil) {
        self.pollNanos = pollNanos
    }
}

extension ScenarioDecoder {
    mutating func observation(_ node: YAMLNode) -> Observation? {
        guard let f = fields(of: node, in: "'observe'", known: ["poll"]) else { return nil }
        var observation = Observation()
        if let n = f["poll"] {
            guard let nanos = duration(n, "poll") else { return nil }
            observation.pollNanos = nanos
        }
        return observation
    }
}
