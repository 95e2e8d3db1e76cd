/// Counters of one toxic, summed over every connection it was considered for.
public struct ToxicStats: Sendable, Equatable {
    /// Connections on which the toxicity draw selected the toxic.
    public var connectionsSelected = 0
    /// Connections on which it did not (the no-op fallback ran).
    public var connectionsSkipped = 0
    /// Bytes the toxic swallowed (the `timeout` blackhole, `limit_data` beyond its limit).
    public var bytesDropped = 0
    /// Connections the toxic closed (`timeout`, `limit_data`).
    public var closes = 0
    /// Connections the toxic reset with RST (`reset_peer`).
    public var resets = 0

    public init() {}
}

/// What a `FaultProxy` has done since it started. A snapshot: read `FaultProxy.stats` again for newer figures.
public struct ProxyStats: Sendable, Equatable {
    public var connectionsAccepted = 0
    /// Connections whose upstream connect failed; the client side was closed.
    public var upstreamConnectFailures = 0
    public var connectionsOpen = 0
    /// Bytes written to the target (client → server), after the toxics.
    public var bytesUpstream = 0
    /// Bytes written to the clients (server → client), after the toxics.
    public var bytesDownstream = 0
    /// Connections reset with RST by a toxic.
    public var resets = 0
    /// Connections closed by a toxic (timeouts, data limits).
    public var toxicCloses = 0
    /// Per toxic name.
    public var toxics: [String: ToxicStats] = [:]

    public init() {}
}

/// One per-connection toxicity decision, for the fault log: the same seed gives the same log.
public struct ToxicDecisionRecord: Sendable, Equatable {
    public var connection: UInt64
    public var toxic: String
    public var applied: Bool

    public init(connection: UInt64, toxic: String, applied: Bool) {
        self.connection = connection
        self.toxic = toxic
        self.applied = applied
    }
}
