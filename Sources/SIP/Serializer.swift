extension SIPMessage {
    /// The message as sent: start line, header lines in order (copied as the bytes they are kept as), a
    /// Content-Length that always matches the body (any received one is left out), blank line, body.
    ///
    /// Written through a pointer into the array's room, sized first: `Array.append(contentsOf:)` cost ~130
    /// instructions for each of a message's ~10 pieces, and a copy of the static `SIPHeaderName.contentLength`
    /// (five reference-counted fields) was made per message to tell the lines apart (issue 33).
    public func serialized() -> [UInt8] {
        var method = "", uri = "", reason = ""
        var status = 0
        switch startLine {
        case .request(let m, let u):
            method = m.rawValue
            uri = u
        case .response(let s, let r):
            status = s
            reason = r
        }
        let head = head, body = body
        // The start line's pieces, `SIP/2.0`, two CRLFs, three digits and a space; `Content-Length: ` and its digits.
        let room = method.utf8.count + uri.utf8.count + reason.utf8.count + 32 + 40 + head.bytes.count + body.count
        return [UInt8](room: room) { out in
            var w = RoomWriter(out)
            if isRequest {
                w.put(&method)
                w.put(" ")
                w.put(&uri)
                w.put(" SIP/2.0\r\n")
            } else {
                w.put("SIP/2.0 ")
                w.put(decimal: status)
                w.put(" ")
                w.put(&reason)
                w.put("\r\n")
            }
            head.bytes.withUnsafeBufferPointer { b in
                var from = 0
                for line in head.lines where SIPParser.isContentLength(b, line.start, line.nameEnd) {
                    w.put(UnsafeBufferPointer(rebasing: b[from..<line.start]))
                    from = line.end + 2
                }
                w.put(UnsafeBufferPointer(rebasing: b[from..<b.count]))
            }
            w.put("Content-Length: ")
            w.put(decimal: body.count)
            w.put("\r\n\r\n")
            body.withUnsafeBufferPointer { w.put($0) }
            return w.n
        }
    }
}
