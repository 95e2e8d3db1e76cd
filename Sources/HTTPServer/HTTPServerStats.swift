import Synchronization

/// A snapshot of an `HTTPServer`'s counters. Taken from atomics without a lock, so counters read together may
/// be a few events apart from one another.
public struct HTTPServerStats: Sendable, Equatable {
    /// Connections accepted since the server was created.
    public var connectionsAccepted: Int
    /// Connections open right now.
    public var connectionsOpen: Int
    /// Complete requests handed to the handler.
    public var requests: Int
    /// Requests rejected before reaching the handler (400, 413, 431, 501, 505).
    public var badRequests: Int

    public init(connectionsAccepted: Int = 0, connectionsOpen: Int = 0, requests: Int = 0, badRequests: Int = 0) {
        self.connectionsAccepted = connectionsAccepted
        self.connectionsOpen = connectionsOpen
        self.requests = requests
        self.badRequests = badRequests
    }
}

/// The live counters behind `HTTPServerStats`, shared by every event loop of one server.
/// Sendable because every field is an `Atomic`; relaxed ordering is enough for statistics.
final class HTTPServerCounters: Sendable {
    let connectionsAccepted = Atomic<Int>(0)
    let connectionsOpen = Atomic<Int>(0)
    let requests = Atomic<Int>(0)
    let badRequests = Atomic<Int>(0)

    var snapshot: HTTPServerStats {
        HTTPServerStats(
            connectionsAccepted: connectionsAccepted.load(ordering: .relaxed),
            connectionsOpen: connectionsOpen.load(ordering: .relaxed),
            requests: requests.load(ordering: .relaxed),
            badRequests: badRequests.load(ordering: .relaxed)
        )
    }
}
