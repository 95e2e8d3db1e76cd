/// One header field of an `H2Request` (not a pseudo-header): the name lower-case, as HTTP/2 requires.
///
/// Kept as its bytes (name, then value), laid out once when the field is made: a caller that sends the same fields
/// on every request (an APNs client's authorization, topic, push type) keeps them, and each request copies bytes
/// into nghttp2's header block instead of walking two Strings' UTF-8 views (~200 instructions and a retain and a
/// release a field, the capacity flow's profile); one reference a field, not two, when an array of them is copied.
public struct H2Field: Sendable, Equatable {
    /// `name`'s UTF-8 followed by `value`'s.
    let bytes: [UInt8]
    let nameCount: Int
    /// Sent "never indexed" (HPACK): a value new on every request (`apns-id`) indexed would push a never-reused
    /// entry through both ends' dynamic tables and, every ~45 requests, evict the fields that do repeat (measured
    /// with nghttp2 1.52 alone, client and server in one process: ~3,900 instructions a push for both ends).
    let unindexed: Bool

    public init(_ name: String, _ value: String) {
        var bytes = Array(name.utf8)
        nameCount = bytes.count
        bytes.append(contentsOf: value.utf8)
        self.bytes = bytes
        unindexed = name == "apns-id"
    }

    public var name: String { String(decoding: bytes[..<nameCount], as: UTF8.self) }
    public var value: String { String(decoding: bytes[nameCount...], as: UTF8.self) }
}

/// One request of an `H2Client`: method and path (the `:scheme` and `:authority` are the client's origin), the
/// other fields, a body and how long the answer may take.
public struct H2Request: Sendable {
    public var method: String
    public var path: String
    public var fields: [H2Field]
    /// Fields sent after `fields`: a caller keeps one array of the fields every request repeats and adds the ones
    /// it does not here, without copying that array per request.
    public var moreFields: [H2Field]
    public var body: [UInt8]
    public var timeoutMillis: Int

    public init(method: String, path: String, fields: [H2Field] = [], moreFields: [H2Field] = [], body: [UInt8] = [],
                timeoutMillis: Int = 10_000) {
        self.method = method
        self.path = path
        self.fields = fields
        self.moreFields = moreFields
        self.body = body
        self.timeoutMillis = timeoutMillis
    }
}

/// A complete answer: the `:status` and the body (an APNs reason JSON such as `{"reason":"BadDeviceToken"}`).
public struct H2Response: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// Why a request got no answer.
public enum H2Error: Error, Equatable, Sendable, CustomStringConvertible {
    case resolveFailed(host: String)
    case connectFailed(errno: Int32)
    case tls(String)
    /// The server did not choose `h2` in ALPN.
    case noHTTP2(alpn: String)
    /// The connection ended (or broke) with the stream open, and the server had not refused it.
    case connectionLost
    /// The server reset the stream with this HTTP/2 error code.
    case streamReset(code: UInt32)
    case timeout(millis: Int)
    case clientClosed

    public var description: String {
        switch self {
        case .resolveFailed(let host): return "cannot resolve \(host)"
        case .connectFailed(let errno): return "connect failed (errno \(errno))"
        case .tls(let why): return "TLS: \(why)"
        case .noHTTP2(let alpn): return "the server chose ALPN \"\(alpn)\", not h2"
        case .connectionLost: return "the connection ended before the answer"
        case .streamReset(let code): return "stream reset by the server (HTTP/2 error \(code))"
        case .timeout(let millis): return "no answer in \(millis) ms"
        case .clientClosed: return "the client was closed"
        }
    }
}

/// One request in flight: what to send, who waits, the answer as it arrives.
final class H2Exchange {
    let request: H2Request
    let completion: H2Client.Completion
    /// Monotonic nanoseconds by which the answer must be complete.
    let deadline: UInt64
    /// Sent once more on a new connection after the server refused it (GOAWAY, REFUSED_STREAM): at most once.
    var resent = false
    var status = 0
    var body: [UInt8] = []
    /// Request body bytes nghttp2 has framed.
    var sentBody = 0

    init(request: H2Request, completion: @escaping H2Client.Completion, deadline: UInt64) {
        self.request = request
        self.completion = completion
        self.deadline = deadline
    }
}
