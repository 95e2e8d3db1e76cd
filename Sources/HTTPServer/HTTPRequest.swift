#if canImport(Glibc)
import Glibc
#endif
/// The HTTP version a request arrived with.
public enum HTTPVersion: String, Sendable {
    case http1_1 = "HTTP/1.1"
    case http2 = "HTTP/2"
}

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
    /// Monotonic nanoseconds (`clinux_monotonic_ns`) when the server had the whole request; 0 when built by hand.
    /// The gateway measures its own latency from here.
    public var receivedNanos: UInt64 = 0
    /// The protocol the request came over.
    public var version: HTTPVersion = .http1_1
    /// Whether the connection is under TLS.
    public var isTLS = false
    /// The certificate the client authenticated with in the TLS handshake (mutual TLS); nil without one.
    public var clientCertificate: ClientCertificate?
    /// The `host:port` of the HTTP CONNECT whose tunnel carries this request; nil for a direct connection.
    public var tunnelTarget: String?

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

    /// The path without its query string. Searched as UTF-8 bytes: `String.firstIndex(of: Character)` walks
    /// grapheme clusters and was 13 % of the push gateway's CPU under h2load.
    public var pathWithoutQuery: Substring {
        var path = path
        let mark = path.withUTF8 { bytes -> Int? in
            guard let base = bytes.baseAddress, let hit = memchr(base, Int32(UInt8(ascii: "?")), bytes.count) else {
                return nil
            }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
        guard let mark else { return path[...] }
        return path[..<path.utf8.index(path.startIndex, offsetBy: mark)]
    }

    /// The body decoded as UTF-8 (invalid bytes become U+FFFD), for handlers that read JSON or text.
    public var bodyString: String {
        String(decoding: body, as: UTF8.self)
    }
}
