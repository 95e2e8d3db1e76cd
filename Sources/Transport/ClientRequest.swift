/// One HTTP request a device (or the reference target's push client) sends.
public struct ClientRequest: Sendable {
    public var method: String
    public var url: String
    /// Raw `name: value` lines, sent as given.
    public var headers: [String]
    public var body: [UInt8]
    /// Whole-transfer timeout; past it the request fails with `.timeout`.
    public var timeoutMillis: Int
    /// Open a new connection for this request and close it afterwards (a phone whose idle connection did not
    /// survive), instead of reusing a pooled one.
    public var freshConnection = false
    /// Collect the response's headers into `ClientResponse.headers`. Off for callers that never read them (the
    /// driver's flows, raw-http): parsing every header line into Strings showed in the raw-http profile.
    public var collectsHeaders = true

    public init(method: String, url: String, headers: [String] = [], body: [UInt8] = [], timeoutMillis: Int = 10_000) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutMillis = timeoutMillis
    }
}

/// A response: any status counts as a response; the caller decides what a 5xx means for it.
public struct ClientResponse: Sendable {
    public var status: Int
    public var body: [UInt8]
    /// Lowercased header names with their values, in order received.
    public var headers: [(name: String, value: String)]

    public init(status: Int, body: [UInt8], headers: [(name: String, value: String)] = []) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

/// Why a request got no HTTP response, grouped the way a load report counts failures.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    case connect(String)
    /// The connection was refused (ECONNREFUSED): nothing listens on the port, e.g. a target that was killed.
    case refused
    case timeout
    case reset(String)
    /// The peer answered with something that is not HTTP (garbage, an unknown version, a broken status line).
    case protocolError(String)
    case tls(String)
    case responseTooLarge(limit: Int)
    case other(code: Int, message: String)

    /// Stable short name used as a counter key (`errors.<kind>`).
    public var kind: String {
        switch self {
        case .connect: return "connect"
        case .refused: return "refused"
        case .timeout: return "timeout"
        case .reset: return "reset"
        case .protocolError: return "protocol"
        case .tls: return "tls"
        case .responseTooLarge: return "response_too_large"
        case .other: return "other"
        }
    }

    public var description: String {
        switch self {
        case .connect(let m): return "could not connect: \(m)"
        case .refused: return "connection refused"
        case .timeout: return "timed out"
        case .reset(let m): return "connection reset or closed: \(m)"
        case .protocolError(let m): return "not an HTTP response: \(m)"
        case .tls(let m): return "TLS failure: \(m)"
        case .responseTooLarge(let limit): return "response body larger than \(limit) bytes"
        case .other(let code, let m): return "transfer failed (curl \(code)): \(m)"
        }
    }
}
