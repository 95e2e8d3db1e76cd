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
        return [UInt8](unsafeUninitializedCapacity: room) { out, n in
            n = 0
            func put(_ text: StaticString) {
                (out.baseAddress! + n).update(from: text.utf8Start, count: text.utf8CodeUnitCount)
                n += text.utf8CodeUnitCount
            }
            func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
                (out.baseAddress! + n).update(from: base, count: bytes.count)
                n += bytes.count
            }
            func put(_ text: inout String) { text.withUTF8 { put($0) } }
            func put(decimal: Int) {
                let from = n
                var v = decimal.magnitude
                repeat {
                    out[n] = UInt8(truncatingIfNeeded: v % 10) + 0x30
                    n += 1
                    v /= 10
                } while v > 0
                out[from..<n].reverse()
            }
            if isRequest {
                put(&method)
                put(" ")
                put(&uri)
                put(" SIP/2.0\r\n")
            } else {
                put("SIP/2.0 ")
                if status < 0 { put("-") }
                put(decimal: status)
                put(" ")
                put(&reason)
                put("\r\n")
            }
            head.bytes.withUnsafeBufferPointer { b in
                var from = 0
                for line in head.lines where SIPParser.isContentLength(b, line.start, line.nameEnd) {
                    put(UnsafeBufferPointer(rebasing: b[from..<line.start]))
                    from = line.end + 2
                }
                put(UnsafeBufferPointer(rebasing: b[from..<b.count]))
            }
            put("Content-Length: ")
            put(decimal: body.count)
            put("\r\n\r\n")
            body.withUnsafeBufferPointer { put($0) }
        }
    }
}
