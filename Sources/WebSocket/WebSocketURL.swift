/// A `ws://` or `wss://` URL taken apart for connecting (RFC 6455 §3): host, port (80/443 by default), and
/// the resource name (path and query) the Upgrade request asks for.
public struct WebSocketURL: Equatable, Sendable, CustomStringConvertible {
    public var secure: Bool
    public var host: String
    public var port: Int
    /// Path and query, never empty (`/` when the URL had none).
    public var resource: String

    public init(secure: Bool, host: String, port: Int? = nil, resource: String = "/") {
        self.secure = secure
        self.host = host
        self.port = port ?? (secure ? 443 : 80)
        self.resource = resource.isEmpty ? "/" : resource
    }

    /// Parses `ws[s]://host[:port][/path][?query]` (an IPv6 host in brackets). Fragments are not allowed
    /// (§3).
    public init(parsing text: String) throws(HandshakeError) {
        let secure: Bool
        var rest: Substring
        if text.hasPrefix("wss://") { secure = true; rest = text.dropFirst(6) }
        else if text.hasPrefix("ws://") { secure = false; rest = text.dropFirst(5) }
        else { throw .invalidURL(text, "must start with ws:// or wss://") }
        guard !text.contains("#") else { throw .invalidURL(text, "fragments (#...) are not allowed") }
        let slash = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<slash]
        rest = rest[slash...]
        var host = Substring(authority)
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL(text, "unclosed [ in host") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { port = Int(after.dropFirst()) ?? -1 }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = Int(authority[authority.index(after: colon)...]) ?? -1
        }
        guard !host.isEmpty else { throw .invalidURL(text, "no host") }
        if let port, !(1...65535).contains(port) { throw .invalidURL(text, "port must be 1-65535") }
        let resource = rest.hasPrefix("?") ? "/" + rest : String(rest)
        self.init(secure: secure, host: String(host), port: port, resource: resource)
    }

    /// The Host header: the port only when it is not the scheme's default.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }

    public var description: String { (secure ? "wss://" : "ws://") + hostHeader + resource }
}
