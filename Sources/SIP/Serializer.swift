extension SIPMessage {
    /// The message as sent: start line, headers in order, a Content-Length that always matches the body (any
    /// received one is replaced), blank line, body.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512 + body.count)
        switch startLine {
        case .request(let method, let uri):
            out.append(contentsOf: method.rawValue.utf8)
            out.append(32)
            out.append(contentsOf: uri.utf8)
            out.append(contentsOf: " SIP/2.0\r\n".utf8)
        case .response(let status, let reason):
            out.append(contentsOf: "SIP/2.0 ".utf8)
            out.append(contentsOf: String(status).utf8)
            out.append(32)
            out.append(contentsOf: reason.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        for header in headers where !SIPHeaderName.contentLength.matches(header.name) {
            out.append(contentsOf: header.name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: header.value.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        out.append(contentsOf: "Content-Length: ".utf8)
        out.append(contentsOf: String(body.count).utf8)
        out.append(contentsOf: "\r\n\r\n".utf8)
        out.append(contentsOf: body)
        return out
    }
}
