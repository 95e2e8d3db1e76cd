extension SIPMessage {
    /// The message as sent: start line, header lines in order (copied as the bytes they are kept as), a
    /// Content-Length that always matches the body (any received one is left out), blank line, body.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        // Room for the start line and Content-Length too: 64 in all was short of a request's URI, and the bytes
        // were copied again to grow.
        var lineRoom = 64
        if case .request(_, let uri) = startLine { lineRoom += uri.utf8.count }
        out.reserveCapacity(lineRoom + 32 + head.bytes.count + body.count)
        switch startLine {
        case .request(let method, let uri):
            out.appendUTF8(method.rawValue)
            out.append(32)
            out.appendUTF8(uri)
            out.appendASCII(" SIP/2.0\r\n")
        case .response(let status, let reason):
            out.appendASCII("SIP/2.0 ")
            ValueBytes.appendDecimal(status, to: &out)
            out.append(32)
            out.appendUTF8(reason)
            out.appendASCII("\r\n")
        }
        head.bytes.withUnsafeBufferPointer { b in
            var from = 0
            let contentLength = SIPHeaderName.contentLength
            for line in head.lines where contentLength.matches(b, line.start, line.nameEnd) {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: b[from..<line.start]))
                from = line.end + 2
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[from..<b.count]))
        }
        out.appendASCII("Content-Length: ")
        ValueBytes.appendDecimal(body.count, to: &out)
        out.appendASCII("\r\n\r\n")
        out.append(contentsOf: body)
        return out
    }
}
