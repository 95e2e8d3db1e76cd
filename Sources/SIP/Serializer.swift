extension SIPMessage {
    /// The message as sent: start line, header lines in order (copied as the bytes they are kept as), a
    /// Content-Length that always matches the body (any received one is left out), blank line, body.
    ///
    /// Written through a pointer into the array's room, sized first: `Array.append(contentsOf:)` cost ~130
    /// instructions for each of a message's ~10 pieces, and a copy of the static `SIPHeaderName.contentLength`
    /// (five reference-counted fields) was made per message to tell the lines apart (issue 33).
    public func serialized() -> [UInt8] { storage.serialized() }
}

extension SIPMessage.Storage {
    /// `SIPMessage.serialized()`, each piece read where it lies in the box: through the message's accessors the
    /// start line's strings, the head's two arrays and the body were copied out first, a retain and a release
    /// each, ~8 and ~11 a message sent (issue 33, round three).
    func serialized() -> [UInt8] {
        switch startLine {
        case .request(let method, let uri):
            return ValueBytes.with(method.rawValue) { m in
                ValueBytes.with(uri) { u in write(m, u, status: Int.min) }
            }
        case .response(let status, let reason):
            return ValueBytes.with(reason) { r in write(r, ValueBytes.Bytes(start: nil, count: 0), status: status) }
        }
    }

    /// The message from its start line's pieces: a request's method and URI (`status` is `Int.min`), or a
    /// response's reason (`second` empty).
    private func write(_ first: ValueBytes.Bytes, _ second: ValueBytes.Bytes, status: Int) -> [UInt8] {
        head.bytes.withUnsafeBufferPointer { b in
            head.lines.withUnsafeBufferPointer { lines in
                body.withUnsafeBufferPointer { body in
                    // The start line's pieces, `SIP/2.0`, two CRLFs, three digits and a space; `Content-Length: `
                    // and its digits.
                    let room = first.count + second.count + 32 + 40 + b.count + body.count
                    return [UInt8](room: room) { out in
                        var w = RoomWriter(out)
                        if status == Int.min {
                            w.put(first)
                            w.put(" ")
                            w.put(second)
                            w.put(" SIP/2.0\r\n")
                        } else {
                            w.put("SIP/2.0 ")
                            w.put(decimal: status)
                            w.put(" ")
                            w.put(first)
                            w.put("\r\n")
                        }
                        var from = 0
                        for line in lines where SIPParser.isContentLength(b, line.start, line.nameEnd) {
                            w.put(UnsafeBufferPointer(rebasing: b[from..<line.start]))
                            from = line.end + 2
                        }
                        w.put(UnsafeBufferPointer(rebasing: b[from..<b.count]))
                        w.put("Content-Length: ")
                        w.put(decimal: body.count)
                        w.put("\r\n\r\n")
                        w.put(body)
                        return w.n
                    }
                }
            }
        }
    }
}
