/// Which HTTP CONNECT targets a server tunnels to itself, and the TLS it serves inside the tunnel.
///
/// Why a server answers CONNECT to itself: APNs clients with the APNs host names built in (kalyke-apns,
/// pyapns-client, Go's net/http, Pushy, node-apn) are redirected with a proxy setting, not a URL. A CONNECT to an
/// allowed `host:port` gets `200 Connection established` and the tunnel is then served as if the client had
/// connected directly: the server's own TLS (its certificate names those hosts), then HTTP/2 or HTTP/1.1 as usual.
/// Any other target gets 403; a malformed CONNECT head gets 400 (431 when it is too large). The proxy hop itself
/// is always cleartext (`HTTPS_PROXY=http://…`), whether the listener speaks TLS or not.
public struct ConnectPolicy: Sendable, Equatable {
    /// Host names (compared without case) a tunnel may be opened to.
    public var hosts: Set<String>
    /// Ports a tunnel may be opened to.
    public var ports: Set<Int>
    /// The TLS served inside tunnels when the listener itself is cleartext; nil uses the listener's TLS (a
    /// cleartext listener needs one of the two).
    public var tunnelTLS: TLSFiles?

    public init(hosts: Set<String>, ports: Set<Int>, tunnelTLS: TLSFiles? = nil) {
        self.hosts = Set(hosts.map { $0.lowercased() })
        self.ports = ports
        self.tunnelTLS = tunnelTLS
    }

    /// Whether `host:port` is a target this server tunnels to itself.
    public func allows(host: String, port: Int) -> Bool {
        ports.contains(port) && hosts.contains(host.lowercased())
    }
}

/// What the server does with one CONNECT head.
enum ConnectDecision: Equatable {
    /// Answer 200 and serve TLS inside; `target` as the client wrote it (`host:port`).
    case tunnel(target: String)
    /// Answer `status` and close.
    case refuse(status: Int, target: String?, reason: String)
}

/// Reads a CONNECT request head (request line and header block, up to and including the blank line). Pure, so
/// the fuzz target and tests drive it without a socket.
enum ConnectHead {
    /// The largest CONNECT head read; a client's is a few hundred bytes (Host, Proxy-Authorization, User-Agent).
    static let maxBytes = 8 * 1024
    static let method: [UInt8] = Array("CONNECT ".utf8)

    static func decide(_ head: [UInt8], policy: ConnectPolicy) -> ConnectDecision {
        guard head.starts(with: method) else {
            return .refuse(status: 400, target: nil, reason: "not a CONNECT request")
        }
        var parser = HTTP1RequestParser(maxHeaderBytes: maxBytes, maxBodyBytes: maxBytes)
        var index = 0
        let event = head.withUnsafeBufferPointer { bytes -> HTTP1RequestParser.Event in
            while true {
                let event = parser.next(bytes, &index)
                if case .expectContinue = event { continue }
                return event
            }
        }
        let parsed: HTTP1ParsedRequest
        switch event {
        case .request(let request) where index == head.count:
            parsed = request
        case .request, .needMore, .expectContinue:
            return .refuse(status: 400, target: nil, reason: "the CONNECT head is incomplete or carries a body")
        case .failure(let error):
            return .refuse(status: error.status, target: nil, reason: "malformed CONNECT head: \(error)")
        }
        guard let (host, port) = authority(parsed.target) else {
            return .refuse(status: 400, target: parsed.target,
                           reason: "a CONNECT target must be host:port, got '\(parsed.target)'")
        }
        guard policy.allows(host: host, port: port) else {
            return .refuse(status: 403, target: parsed.target,
                           reason: "tunnels go only to APNs hosts on the allowed ports")
        }
        return .tunnel(target: parsed.target)
    }

    /// Splits an authority-form target: `host:port` or `[v6]:port`, with a port from 1 to 65535.
    static func authority(_ target: String) -> (host: String, port: Int)? {
        guard let colon = target.lastIndex(of: ":") else { return nil }
        var host = Substring(target[..<colon])
        let portText = target[target.index(after: colon)...]
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = Int(portText), (1...65535).contains(port) else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty, host.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "/" && $0 != "@" })
        else { return nil }
        return (String(host), port)
    }

    /// The index just past the blank line that ends a head in `bytes` (CRLF or bare LF line ends), or nil.
    static func headEnd(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0A {
                if i + 1 < bytes.count && bytes[i + 1] == 0x0A { return i + 2 }
                if i + 2 < bytes.count && bytes[i + 1] == 0x0D && bytes[i + 2] == 0x0A { return i + 3 }
            }
            i += 1
        }
        return nil
    }

    static let established: [UInt8] = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)

    /// A refusal as a proxy sends it: status, a one-line text body saying why, and `connection: close`.
    static func refusal(_ status: Int, reason: String) -> [UInt8] {
        let body = reason + "\n"
        let phrase = HTTP1ResponseEncoder.reasonPhrase(status).description
        return Array(("HTTP/1.1 \(status) \(phrase)\r\ncontent-type: text/plain\r\ncontent-length: "
            + "\(body.utf8.count)\r\nconnection: close\r\n\r\n" + body).utf8)
    }
}
