/// A complete request as a handler sees it, whatever protocol carried it.
///
/// It holds nothing HTTP/1-specific (no version, no framing headers' meaning), so the HTTP/2 layer can produce
/// the same value from a stream.
public struct HTTPRequest: Sendable {
    /// The method as sent, e.g. `GET`, `POST` (methods are case-sensitive, so it is not normalised).
    public var method: String
    /// The request target including any query string, e.g. `/3/device/abc?x=1`.
    public var path: String
    /// Header fields with lowercased names, in the order received, duplicates kept.
    public var headers: [HTTPHeader]
    /// The body after any transfer decoding (chunked bodies arrive joined).
    public var body: [UInt8]
    /// Identifies the connection the request came on: requests sharing it share a connection. Unique for the
    /// lifetime of the process.
    public var connectionID: UInt64

    public init(method: String, path: String, headers: [HTTPHeader] = [], body: [UInt8] = [], connectionID: UInt64 = 0) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.connectionID = connectionID
    }

    /// The first value of the header `name` (any case), or nil when absent.
    public func header(_ name: String) -> String? {
        headers.firstValue(named: name)
    }

    /// Every value of the header `name` (any case), in the order received; empty when absent.
    public func headerValues(_ name: String) -> [String] {
        headers.allValues(named: name)
    }

    /// The path without its query string.
    public var pathWithoutQuery: Substring {
        if let mark = path.firstIndex(of: "?") {
            return path[..<mark]
        }
        return path[...]
    }

    /// The body decoded as UTF-8 (invalid bytes become U+FFFD), for handlers that read JSON or text.
    public var bodyString: String {
        String(decoding: body, as: UTF8.self)
    }
}
