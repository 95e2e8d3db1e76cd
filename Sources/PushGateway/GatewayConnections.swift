import HTTPServer
import Locking
import struct Synchronization.Atomic

/// How a connection authenticated its pushes, decided by its first request.
public enum ConnectionAuth: String, Sendable, CaseIterable {
    /// A client certificate (mutual TLS).
    case certificate
    /// JWT provider tokens in `authorization`.
    case token
    /// Neither (every push on it is refused MissingProviderToken, or it carried FCM only).
    case none
}

/// What the gateway counts about connections rather than pushes: how each authenticated, the CONNECT tunnels
/// it served and refused, client certificates refused in the handshake, and the non-integer `iat` forms it
/// accepted. Names are the metric names a run records (`gateway.connections.certificate`, …).
///
/// Sendable: counters are atomics; the per-connection table sits in mutex-guarded shards keyed by connection
/// id (the same shape as `ProviderTokenTracker`), and entries go when the server reports the connection closed.
final class GatewayConnections: Sendable {
    private final class Shard: Sendable {
        let seen = Mutex<Set<UInt64>>([])
    }

    private static let shardCount = 16
    private let shards: [Shard] = (0..<GatewayConnections.shardCount).map { _ in Shard() }
    let certificateConnections = Atomic<Int>(0)
    let tokenConnections = Atomic<Int>(0)
    let unauthenticatedConnections = Atomic<Int>(0)
    let tunnelsOpened = Atomic<Int>(0)
    let tunnelsRefused = Atomic<Int>(0)
    let malformedConnects = Atomic<Int>(0)
    let certificatesExpired = Atomic<Int>(0)
    let certificatesUntrusted = Atomic<Int>(0)

    /// The connection noted last (0: none), known to be in its shard's set: a client's pushes come on one
    /// connection, and locking the shard and hashing the id into its set for every push cost ~700 instructions.
    private let lastNoted = Atomic<UInt64>(0)

    /// Counts `connection` under `auth` the first time a request of it arrives.
    func note(_ connection: UInt64, auth: () -> ConnectionAuth) {
        if lastNoted.load(ordering: .relaxed) == connection { return }
        let shard = shards[Int(connection % UInt64(Self.shardCount))]
        let first = shard.seen.withLock { $0.insert(connection).inserted }
        lastNoted.store(connection, ordering: .relaxed)
        guard first else { return }
        switch auth() {
        case .certificate: certificateConnections.add(1, ordering: .relaxed)
        case .token: tokenConnections.add(1, ordering: .relaxed)
        case .none: unauthenticatedConnections.add(1, ordering: .relaxed)
        }
    }

    func forget(_ connection: UInt64) {
        _ = lastNoted.compareExchange(expected: connection, desired: 0, ordering: .relaxed)
        _ = shards[Int(connection % UInt64(Self.shardCount))].seen.withLock { $0.remove(connection) }
    }

    func record(_ event: ConnectionEvent) {
        switch event {
        case .tunnelOpened:
            tunnelsOpened.add(1, ordering: .relaxed)
        case .tunnelRefused(let status, _, _):
            if status == 403 {
                tunnelsRefused.add(1, ordering: .relaxed)
            } else {
                malformedConnects.add(1, ordering: .relaxed)
            }
        case .clientCertificateRefused(let expired, _):
            if expired {
                certificatesExpired.add(1, ordering: .relaxed)
            } else {
                certificatesUntrusted.add(1, ordering: .relaxed)
            }
        }
    }

    func count(_ auth: ConnectionAuth) -> Int {
        switch auth {
        case .certificate: return certificateConnections.load(ordering: .relaxed)
        case .token: return tokenConnections.load(ordering: .relaxed)
        case .none: return unauthenticatedConnections.load(ordering: .relaxed)
        }
    }
}

extension APNsGateway {
    /// The hosts and ports APNs clients reach Apple on, which the gateway tunnels to itself when asked by
    /// HTTP CONNECT. `tunnelTLS` serves the tunnels on a cleartext listener (nil: the listener's own TLS).
    public static func connectPolicy(tunnelTLS: TLSFiles? = nil) -> ConnectPolicy {
        ConnectPolicy(hosts: ["api.push.apple.com", "api.sandbox.push.apple.com", "api.development.push.apple.com"],
                      ports: [443, 2197], tunnelTLS: tunnelTLS)
    }

    /// Connection-level counters by metric name (`gateway.connections.certificate`, `gateway.jwt.iat_string`,
    /// `gateway.connect.tunnels`, …), zeros included.
    public var connectionCounters: [(name: String, value: Int)] {
        var out = ConnectionAuth.allCases.map { ("gateway.connections.\($0.rawValue)", connections.count($0)) }
        out += [
            ("gateway.connect.tunnels", connections.tunnelsOpened.load(ordering: .relaxed)),
            ("gateway.connect.refused", connections.tunnelsRefused.load(ordering: .relaxed)),
            ("gateway.connect.malformed", connections.malformedConnects.load(ordering: .relaxed)),
            ("gateway.tls.client_cert_expired", connections.certificatesExpired.load(ordering: .relaxed)),
            ("gateway.tls.client_cert_untrusted", connections.certificatesUntrusted.load(ordering: .relaxed)),
            ("gateway.jwt.iat_string", tokens.iatStrings.load(ordering: .relaxed)),
            ("gateway.jwt.iat_float", tokens.iatFloats.load(ordering: .relaxed)),
        ]
        return out
    }

    public func connectionEvent(_ event: ConnectionEvent) {
        connections.record(event)
        switch event {
        case .tunnelOpened(let target):
            log?("connect 200 \(target)")
        case .tunnelRefused(let status, let target, let reason):
            log?("connect \(status) \(target ?? "-"): \(reason)")
        case .clientCertificateRefused(let expired, let detail):
            log?("tls client certificate refused (\(expired ? "expired" : "untrusted")): \(detail)")
        }
    }
}
