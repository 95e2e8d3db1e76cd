/// The status line and headers: where the framing of the body is decided.
extension HTTP1ResponseParser {
    /// Parses one whole head at the start of `bytes`, or returns nil when its empty line has not arrived yet.
    mutating func parseHead(_ bytes: UnsafeRawBufferPointer) throws(WireResponseError) -> Int? {
        guard let end = Self.headEnd(bytes) else { return nil }
        if end > limits.maxHeadBytes { throw .headTooLarge(limit: limits.maxHeadBytes) }
        var at = 0
        var first = true
        var http10 = false
        while at < end {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[at..<end])
            guard let line = Self.lineEnd(rest) else { break }
            let text = UnsafeRawBufferPointer(rebasing: rest[..<line.length])
            at += line.next
            if first {
                (status, http10) = try Self.statusLine(text)
                first = false
            } else if line.length > 0 {
                try header(text)
            }
        }
        try decideFraming(http10: http10)
        return end
    }

    /// Where the head ends (just past its empty line), or nil.
    static func headEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        let count = bytes.count
        while i < count {
            guard let newline = bytes[i...].firstIndex(of: 0x0A) else { return nil }
            if newline + 1 < count && bytes[newline + 1] == 0x0A { return newline + 2 }
            if newline + 2 < count && bytes[newline + 1] == 0x0D && bytes[newline + 2] == 0x0A { return newline + 3 }
            if newline + 2 >= count { return nil }
            i = newline + 1
        }
        return nil
    }

    /// `HTTP/1.x DDD reason`: the status, and whether the version is 1.0.
    static func statusLine(_ line: UnsafeRawBufferPointer) throws(WireResponseError) -> (Int, Bool) {
        // "HTTP/1." byte by byte: no array to compare with on every response.
        guard line.count >= 12, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F,
              line[5] == 0x31, line[6] == 0x2E, line[7] == 0x30 || line[7] == 0x31, line[8] == 0x20,
              line.count == 12 || line[12] == 0x20 else {
            throw .statusLine(WireResponseError.quote(line))
        }
        var status = 0
        for i in 9..<12 {
            guard line[i] >= 0x30 && line[i] <= 0x39 else { throw .statusLine(WireResponseError.quote(line)) }
            status = status * 10 + Int(line[i] - 0x30)
        }
        guard status >= 100 else { throw .statusLine(WireResponseError.quote(line)) }
        return (status, line[7] == 0x30)
    }

    private mutating func header(_ line: UnsafeRawBufferPointer) throws(WireResponseError) {
        if line[0] == 0x20 || line[0] == 0x09 {
            throw .headerLine(WireResponseError.quote(line), reason: "obsolete line folding (RFC 9112 §5.2)")
        }
        guard let colon = line.firstIndex(of: 0x3A) else {
            throw .headerLine(WireResponseError.quote(line), reason: "no colon")
        }
        guard colon > 0 else { throw .headerLine(WireResponseError.quote(line), reason: "empty name") }
        for i in 0..<colon where !Self.isTokenByte(line[i]) {
            let why = line[i] == 0x20 || line[i] == 0x09 ? "whitespace before the colon"
                : "byte 0x\(String(line[i], radix: 16)) in the name"
            throw .headerLine(WireResponseError.quote(line), reason: why)
        }
        var start = colon + 1
        var stop = line.count
        while start < stop && (line[start] == 0x20 || line[start] == 0x09) { start += 1 }
        while stop > start && (line[stop - 1] == 0x20 || line[stop - 1] == 0x09) { stop -= 1 }
        let name = UnsafeRawBufferPointer(rebasing: line[..<colon])
        let value = UnsafeRawBufferPointer(rebasing: line[start..<stop])
        try note(name, value)
        if collectsHeaders {
            headers.append(WireHeader(name: String(decoding: name, as: UTF8.self),
                                      value: String(decoding: value, as: UTF8.self)))
        }
    }

    /// Reads the headers that frame the body or decide the connection's reuse.
    private mutating func note(_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer)
        throws(WireResponseError) {
        if Self.equalsLowercase(name, "content-length") {
            var length = 0
            guard !value.isEmpty, value.count <= 18 else { throw .contentLength(WireResponseError.quote(value)) }
            for byte in value {
                guard byte >= 0x30 && byte <= 0x39 else { throw .contentLength(WireResponseError.quote(value)) }
                length = length * 10 + Int(byte - 0x30)
            }
            if let earlier = contentLength, earlier != length {
                throw .contentLength("\(earlier) and \(length) in two headers")
            }
            contentLength = length
        } else if Self.equalsLowercase(name, "transfer-encoding") {
            // Chunked only when it is the last coding; otherwise the body runs to the connection's end.
            let last = value.split(separator: 0x2C).last.map(Self.trimmedOWS) ?? []
            chunkedCoding = last.withUnsafeBytes { Self.equalsLowercase($0, "chunked") }
        } else if Self.equalsLowercase(name, "connection") {
            for token in value.split(separator: 0x2C) {
                Self.trimmedOWS(token).withUnsafeBytes {
                    if Self.equalsLowercase($0, "close") { connectionTokens |= 1 }
                    if Self.equalsLowercase($0, "keep-alive") { connectionTokens |= 2 }
                }
            }
        }
    }

    /// A list element without the optional whitespace (spaces and tabs, RFC 9110 §5.6.3) on either side.
    static func trimmedOWS(_ element: Slice<UnsafeRawBufferPointer>) -> [UInt8] {
        let isOWS = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        return Array(element.drop(while: isOWS).reversed().drop(while: isOWS).reversed())
    }

    private mutating func decideFraming(http10: Bool) throws(WireResponseError) {
        keepAlive = connectionTokens & 1 == 0 && (!http10 || connectionTokens & 2 != 0)
        if status < 200 && status != 101 {
            // Interim (100 Continue, 103 Early Hints): the final response follows on the same connection.
            resetHead(noBody: noBody)
            return
        }
        if status == 101 {
            keepAlive = false
            state = .complete
        } else if noBody || status == 204 || status == 304 {
            state = .complete
        } else if let chunked = chunkedCoding {
            // Transfer-Encoding overrides Content-Length; a response with both must not reuse the connection.
            if contentLength != nil || !chunked { keepAlive = false }
            state = chunked ? .chunkSize : .untilClose
        } else if let contentLength {
            state = contentLength == 0 ? .complete : .fixed(remaining: contentLength)
        } else {
            keepAlive = false
            state = .untilClose
        }
    }

    /// tchar (RFC 9110 §5.6.2).
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }

    /// Whether `bytes` equal `lowercase` (ASCII, already lowercase) ignoring case.
    static func equalsLowercase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let wanted = lowercase.utf8Start
        for i in 0..<bytes.count where bytes[i] | 0x20 != wanted[i] {
            // `| 0x20` lowercases letters; '-' (0x2D) is unchanged by it.
            return false
        }
        return true
    }
}
