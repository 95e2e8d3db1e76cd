/// Why an agent could not be added to a pool.
public enum SIPClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// socket, bind or connect failed with this errno.
    case socket(call: String, errno: Int32)
    /// The proxy host is not an IPv4 literal (resolve names once before a run, not per device).
    case badProxyAddress(String)
    /// A TLS agent on a pool made without a client TLS context (a CA to verify the proxy against), or OpenSSL
    /// could not make the session.
    case tlsUnavailable(String)
    /// The WebSocket Upgrade request could not be written (the proxy's address makes no valid Host header).
    case webSocketUnavailable(String)

    public var description: String {
        switch self {
        case .socket(let call, let errno):
            return "SIP socket: \(call) failed with errno \(errno); raise the open-file limit or check the proxy "
                + "address"
        case .badProxyAddress(let host):
            return "SIP proxy address '\(host)' is not an IPv4 literal; resolve it before the run"
        case .tlsUnavailable(let why):
            return "SIP over TLS: \(why)"
        case .webSocketUnavailable(let why):
            return "SIP over WebSocket: \(why); give the proxy as an IPv4 address and port"
        }
    }
}
