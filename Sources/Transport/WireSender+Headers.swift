import HTTPWire

/// The request's header lines as libcurl reads `CURLOPT_HTTPHEADER`, so a server sees the same headers whichever
/// client a run uses: `Name: value` is sent (a caller's `Host` or `Content-Length` in place of the client's own);
/// `Name:` with nothing after the colon is not sent and keeps the client from adding its own of that name;
/// `Name;` sends the header empty; a line with neither is dropped. Then what libcurl adds unless told not to:
/// `Accept: */*`, and for a body set as POST fields `Content-Type: application/x-www-form-urlencoded`. (libcurl's
/// `Expect: 100-continue` is never sent: HTTPClient's header list switches it off.)
extension WireSender {
    /// Over each line's UTF-8 bytes (every delimiter is ASCII): the Character-wise `firstIndex` and `drop` it
    /// replaces cost ~6,000 instructions a request.
    static func headers(_ lines: [String], sendsBody: Bool) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(lines.count + 2)
        var namesAccept = false
        var namesType = false
        for var line in lines {
            let parsed = line.withUTF8 { Self.header($0) }
            guard let (name, value, sent) = parsed else { continue }
            namesAccept = namesAccept || WireRequest.named(name, "accept")
            namesType = namesType || WireRequest.named(name, "content-type")
            if sent { headers.append((name, value)) }
        }
        if !namesAccept { headers.append(("Accept", "*/*")) }
        if sendsBody && !namesType { headers.append(("Content-Type", "application/x-www-form-urlencoded")) }
        return headers
    }

    /// One line read as the header comment says: its name, its value (blanks after the colon dropped) and
    /// whether it is sent; nil for a line with neither a colon nor a closing `;`.
    private static func header(_ line: UnsafeBufferPointer<UInt8>) -> (name: String, value: String, sent: Bool)? {
        if let colon = line.firstIndex(of: 0x3A) {
            var start = colon + 1
            while start < line.count, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
            let name = String(decoding: UnsafeBufferPointer(rebasing: line[..<colon]), as: UTF8.self)
            let value = String(decoding: UnsafeBufferPointer(rebasing: line[start...]), as: UTF8.self)
            // `Name:` with nothing after it is not sent, unless the line also ends in `;`.
            return (name, value, !value.isEmpty || line.last == 0x3B)
        }
        guard line.last == 0x3B else { return nil }
        return (String(decoding: UnsafeBufferPointer(rebasing: line[..<(line.count - 1)]), as: UTF8.self), "", true)
    }
}
