/// Where a connection goes: scheme, host and port (RFC 6454's origin). Connections are pooled per origin.
public struct WireOrigin: Hashable, Sendable {
    public var secure: Bool
    /// As written in the URL, without IPv6 brackets.
    public var host: String
    public var port: Int

    public init(secure: Bool, host: String, port: Int) {
        self.secure = secure
        self.host = host
        self.port = port
    }

    /// The Host header's value: the port only when it is not the scheme's default.
    public var hostHeader: String {
        // Bytes, not `contains(":")`: a String argument is Foundation's search (CFStringFind, in the devices' profile).
        let name = host.utf8.contains(0x3A) ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// Splits `url` into its origin and request target (path and query; `/` when empty; the fragment dropped).
    public static func parse(_ url: String) throws(WireError) -> (origin: WireOrigin, target: String) {
        let secure: Bool
        var rest: Substring
        if url.hasPrefix("http://") {
            secure = false
            rest = url.dropFirst(7)
        } else if url.hasPrefix("https://") {
            secure = true
            rest = url.dropFirst(8)
        } else {
            throw .badURL("\(url) is not an http:// or https:// URL")
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let slash = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<slash]
        var target = String(rest[slash...])
        if target.isEmpty || target.first == "?" { target = "/" + target }
        guard !authority.utf8.contains(0x40) else {
            throw .badURL("\(url) has user information, which is not supported")
        }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .badURL("\(url): unclosed IPv6 bracket") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty {
                throw .badURL("\(url): bytes after the IPv6 address")
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw .badURL("\(url) has no host") }
        var port = secure ? 443 : 80
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw .badURL("\(url): port \"\(portText)\" is not 1…65535")
            }
            port = value
        }
        return (WireOrigin(secure: secure, host: String(host), port: port), target)
    }
}
