import WebSocket

/// Why a socket could not be opened at all (failures after `open` returned arrive as close reports).
public enum WebSocketClientError: Error, Equatable, Sendable, CustomStringConvertible {
    case handshake(HandshakeError)
    /// The host is not an IP literal and could not be resolved.
    case unresolvable(String)
    /// socket/connect failed at once (the errno), e.g. EMFILE when out of descriptors.
    case connectFailed(host: String, port: Int, errno: Int32)
    /// A wss URL on a pool made without TLS.
    case noTLSContext
    case tlsSetupFailed(String)

    /// A stable counter key.
    public var kind: String {
        switch self {
        case .handshake(let error): return "handshake." + error.kind
        case .unresolvable: return "unresolvable"
        case .connectFailed: return "connect"
        case .noTLSContext: return "no_tls"
        case .tlsSetupFailed: return "tls_setup"
        }
    }

    public var description: String {
        switch self {
        case .handshake(let error): return error.description
        case .unresolvable(let host): return "cannot resolve \(host); use an IP address or a resolvable name"
        case .connectFailed(let host, let port, let code):
            return "cannot connect to \(host):\(port) (errno \(code)); raise `ulimit -n` if it is EMFILE (24)"
        case .noTLSContext: return "a wss:// URL needs a pool made with a ClientTLS (CA file)"
        case .tlsSetupFailed(let why): return "TLS client setup failed: \(why)"
        }
    }
}
