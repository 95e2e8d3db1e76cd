/// A response from a handler, protocol-agnostic like `HTTPRequest`.
///
/// The server owns framing: it sets `Content-Length` from `body` (ignoring any `content-length` or
/// `transfer-encoding` the handler supplies) and adds `Server: callstorm` unless a `server` header is present.
/// A `connection: close` header makes an HTTP/1.1 connection close after this response.
public struct HTTPResponse: Sendable {
    /// The status code, 200...999. Anything outside that range is sent as 500, since an interim (1xx)
    /// status cannot be a final answer.
    public var status: Int
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    /// Ends the connection gracefully after this answer (a fault the push gateway injects): HTTP/2 sends a
    /// GOAWAY shutdown notice, answers the streams the client already sent, then the final GOAWAY (NO_ERROR),
    /// so the client must open a new connection for later requests; HTTP/1.1 closes after it.
    public var goAway = false
    /// Set by `WebSocketUpgrade.accept` on a 101 answer: the HTTP/1.1 connection switches to WebSocket frames
    /// served by this session once the answer is queued.
    public var webSocket: WebSocketHandOver?

    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response: `content-type: application/json` plus `headers`, with `body` as UTF-8.
    /// Without `headers`, every answer shares one header array: a new one per answer was an allocation and a
    /// copy per request of the reference target (issue 33).
    public static func json(_ status: Int, _ body: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        guard !headers.isEmpty else {
            return HTTPResponse(status: status, headers: jsonHeaders, body: Array(body.utf8))
        }
        var all = jsonHeaders
        all.append(contentsOf: headers)
        return HTTPResponse(status: status, headers: all, body: Array(body.utf8))
    }

    /// A JSON response whose body is already bytes (no copy of them is made).
    public static func json(_ status: Int, bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: jsonHeaders, body: bytes)
    }

    private static let jsonHeaders = [HTTPHeader(name: "content-type", value: "application/json")]

    /// A plain-text response: `content-type: text/plain; charset=utf-8` plus `headers`.
    public static func text(_ status: Int, _ body: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        var all = [HTTPHeader(name: "content-type", value: "text/plain; charset=utf-8")]
        all.append(contentsOf: headers)
        return HTTPResponse(status: status, headers: all, body: Array(body.utf8))
    }

    /// A response with no body (APNs success is `200` with only an `apns-id` header).
    public static func empty(_ status: Int, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: [])
    }

    /// The first value of the header `name` (any case), or nil when absent.
    public func header(_ name: String) -> String? {
        headers.firstValue(named: name)
    }
}
