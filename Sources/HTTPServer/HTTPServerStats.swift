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
    /// TLS handshakes completed, and failed.
    public var tlsHandshakes: Int = 0
    public var tlsHandshakeFailures: Int = 0
    /// Connections that spoke HTTP/2.
    public var http2Connections: Int = 0
    /// HTTP/2 streams open right now, and the most open at once.
    public var streamsOpen: Int = 0
    public var maxStreamsOpen: Int = 0
    /// Peer protocol errors on HTTP/2: connections ended with GOAWAY(error) and streams reset.
    public var http2ProtocolErrors: Int = 0
    /// Graceful GOAWAYs sent because a handler asked for them (`HTTPResponse.goAway`).
    public var goAwaysSent: Int = 0
    /// CONNECT tunnels opened, and CONNECTs refused (target not allowed, or a malformed head).
    public var tunnelsOpened: Int = 0
    public var tunnelsRefused: Int = 0
    /// Handshakes that ended because the client's certificate did not verify (expired, or another CA).
    public var clientCertificatesRefused: Int = 0
    /// Handshakes in which the client authenticated with a certificate that verified.
    public var clientCertificates: Int = 0

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
    let tlsHandshakes = Atomic<Int>(0)
    let tlsHandshakeFailures = Atomic<Int>(0)
    let http2Connections = Atomic<Int>(0)
    let streamsOpen = Atomic<Int>(0)
    let maxStreamsOpen = Atomic<Int>(0)
    let http2ProtocolErrors = Atomic<Int>(0)
    let goAwaysSent = Atomic<Int>(0)
    let tunnelsOpened = Atomic<Int>(0)
    let tunnelsRefused = Atomic<Int>(0)
    let clientCertificatesRefused = Atomic<Int>(0)
    let clientCertificates = Atomic<Int>(0)

    func streamOpened() {
        let now = streamsOpen.wrappingAdd(1, ordering: .relaxed).newValue
        if now > maxStreamsOpen.load(ordering: .relaxed) { maxStreamsOpen.store(now, ordering: .relaxed) }
    }

    var snapshot: HTTPServerStats {
        var stats = HTTPServerStats(
            connectionsAccepted: connectionsAccepted.load(ordering: .relaxed),
            connectionsOpen: connectionsOpen.load(ordering: .relaxed),
            requests: requests.load(ordering: .relaxed),
            badRequests: badRequests.load(ordering: .relaxed)
        )
        stats.tlsHandshakes = tlsHandshakes.load(ordering: .relaxed)
        stats.tlsHandshakeFailures = tlsHandshakeFailures.load(ordering: .relaxed)
        stats.http2Connections = http2Connections.load(ordering: .relaxed)
        stats.streamsOpen = streamsOpen.load(ordering: .relaxed)
        stats.maxStreamsOpen = maxStreamsOpen.load(ordering: .relaxed)
        stats.http2ProtocolErrors = http2ProtocolErrors.load(ordering: .relaxed)
        stats.goAwaysSent = goAwaysSent.load(ordering: .relaxed)
        stats.tunnelsOpened = tunnelsOpened.load(ordering: .relaxed)
        stats.tunnelsRefused = tunnelsRefused.load(ordering: .relaxed)
        stats.clientCertificatesRefused = clientCertificatesRefused.load(ordering: .relaxed)
        stats.clientCertificates = clientCertificates.load(ordering: .relaxed)
        return stats
    }
}
