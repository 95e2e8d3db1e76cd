/// Why a request got no response. `kind` uses the names of `TransportError.kind` (the libcurl transport's), so
/// a device's error counters read the same whichever client carried the request.
public enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The URL is not `http://` or `https://` with a host; why.
    case badURL(String)
    /// A header name or value would break the request's framing (CR, LF, or a name that is not a token).
    case badHeader(String)
    /// The host name did not resolve.
    case resolveFailed(host: String)
    /// connect(2) failed at once or later (ECONNREFUSED is `.refused`).
    case connectFailed(host: String, port: Int, errno: Int32)
    case refused(host: String, port: Int)
    /// No TCP connection (and TLS handshake) within the connect timeout.
    case connectTimeout(millis: Int)
    /// No complete response within the request's timeout.
    case responseTimeout(millis: Int)
    /// The TLS handshake failed; OpenSSL's reason.
    case tls(String)
    /// An https URL on a client made without a TLS context.
    case noTLSContext
    /// The server closed or reset the connection before the response was complete; where it was.
    case connectionClosed(String)
    /// The response broke HTTP/1.1's rules.
    case malformed(WireResponseError)
    /// The response body exceeds the client's limit.
    case responseTooLarge(limit: Int)
    /// The client was closed with the request outstanding.
    case clientClosed

    /// Stable short name used as a counter key, as `TransportError.kind`.
    public var kind: String {
        switch self {
        case .badURL, .badHeader, .noTLSContext, .clientClosed: return "other"
        case .resolveFailed, .connectFailed: return "connect"
        case .refused: return "refused"
        case .connectTimeout, .responseTimeout: return "timeout"
        case .tls: return "tls"
        case .connectionClosed: return "reset"
        case .malformed: return "protocol"
        case .responseTooLarge: return "response_too_large"
        }
    }

    public var description: String {
        switch self {
        case .badURL(let why): return "bad URL: \(why)"
        case .badHeader(let why): return "bad request header: \(why)"
        case .resolveFailed(let host): return "could not resolve \(host)"
        case .connectFailed(let host, let port, let code):
            return "could not connect to \(host):\(port) (errno \(code))"
        case .refused(let host, let port): return "connection to \(host):\(port) refused"
        case .connectTimeout(let millis): return "no connection within \(millis) ms"
        case .responseTimeout(let millis): return "no complete response within \(millis) ms"
        case .tls(let why): return "TLS failure: \(why)"
        case .noTLSContext: return "an https URL on a client made without a TLS context"
        case .connectionClosed(let part): return "connection reset or closed: \(part)"
        case .malformed(let error): return "not an HTTP/1.1 response: \(error)"
        case .responseTooLarge(let limit): return "response body larger than \(limit) bytes"
        case .clientClosed: return "the client was closed before the response arrived"
        }
    }
}
