/// What the proxy and registrar on loopback send in the shared-socket tests, written by hand so each test controls
/// what arrives when.
enum ProxyMessages {
    /// An OPTIONS from the proxy at `proxyPort` to `uri`; `tag` names its branch (`z9hG4bK` + tag) and Call-ID.
    static func options(to uri: String, tag: String, proxyPort: Int) -> [UInt8] {
        Array(("OPTIONS \(uri) SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:\(proxyPort);branch=z9hG4bK\(tag)\r\n"
               + "Max-Forwards: 70\r\nFrom: <sip:proxy@127.0.0.1>;tag=p\r\nTo: <\(uri)>\r\n"
               + "Call-ID: \(tag)@p\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n").utf8)
    }

    /// A registrar's 200 to `request`: its Via (rport and received filled in, as Kamailio does), From, To with a
    /// tag, Call-ID, CSeq, and its Contact granted 600 s.
    static func okay(_ request: String) -> [UInt8] {
        var lines = ["SIP/2.0 200 OK"]
        for l in request.components(separatedBy: "\r\n") {
            if l.hasPrefix("Via:") {
                lines.append(l.replacingOccurrences(of: ";rport", with: ";rport=40000;received=127.0.0.1"))
            } else if l.hasPrefix("From:") || l.hasPrefix("Call-ID:") || l.hasPrefix("CSeq:") {
                lines.append(l)
            } else if l.hasPrefix("To:") {
                lines.append(l + ";tag=r1")
            } else if l.hasPrefix("Contact:") {
                lines.append(l + ";expires=600")
            }
        }
        return Array((lines.joined(separator: "\r\n") + "\r\nContent-Length: 0\r\n\r\n").utf8)
    }
}
