/// The head as nearly every peer writes it, read in one pass (issue 33): a start line, then `Name: value` lines
/// with one space after the colon and nothing to trim, each ended by CRLF, then the blank line. The lines are
/// indexed into a table on the stack as they are found, the header bytes copied in one piece, the lines
/// `keepFields` reads and the Content-Length noted on the way: the general loop (`SIPParser.parseHead`) appended
/// each line's index to an array (a uniqueness check and a possible growth each), copied the bytes in runs, and
/// `keepFields` and `contentLength` walked the lines twice more. Anything else (a folded line, spaces to trim, a
/// bare CR, no blank line, more than `quickLineLimit` lines, an error in the head) comes back nil for the general
/// loop, which reads it as before and reports its errors.
extension SIPParser {
    /// Lines past this many go to the general loop: the table is on the stack up to 1 KB (32 bytes a line).
    static let quickLineLimit = 30

    /// The datagram's message (`bytes` from its start line on) with its body and fields, as `parse(datagram:)`
    /// makes it; nil when the head is not in the usual form. The body's errors are `parse(datagram:)`'s.
    static func quickHead(_ bytes: UnsafeBufferPointer<UInt8>, strings: SIPStringCache?,
                          maxBodyBytes: Int = defaultMaxBodyBytes) throws(SIPParseError) -> SIPMessage? {
        let firstEnd = ValueBytes.findCR(bytes, 0, bytes.count)
        guard firstEnd + 1 < bytes.count, bytes[firstEnd + 1] == 10,
              let startLine = try? parseStartLine(UnsafeBufferPointer(rebasing: bytes[..<firstEnd]), strings: strings)
        else { return nil }
        let from = firstEnd + 2
        let read = withUnsafeTemporaryAllocation(of: SIPHead.Line.self, capacity: quickLineLimit) { table in
            quickLines(bytes, from: from, into: table).map { found in
                (SIPHead(bytes: UnsafeBufferPointer(rebasing: bytes[from..<(found.blank + 2)]),
                         lines: UnsafeBufferPointer(rebasing: table[..<found.count])), found)
            }
        }
        guard let (head, found) = read else { return nil }
        let bodyStart = found.blank + 4
        let available = bytes.count - bodyStart
        let length = found.contentLength ?? available
        guard length <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
        guard length <= available else { throw .truncatedBody }
        return SIPMessage(startLine: startLine, head: head, body: Array(bytes[bodyStart..<(bodyStart + length)]),
                          fields: found.kept, strings: strings)
    }

    /// Indexes the header lines from `from` into `table` (offsets from `from`) up to the blank line; nil when a
    /// line is not in the usual form or the Content-Length lines do not agree on a number.
    private static func quickLines(_ b: UnsafeBufferPointer<UInt8>, from: Int,
                                   into table: UnsafeMutableBufferPointer<SIPHead.Line>)
        -> (count: Int, blank: Int, kept: KeptLines, contentLength: Int?)? {
        var kept = KeptLines()
        var length: Int?
        var n = 0
        var lineStart = from
        while true {
            let lineEnd = ValueBytes.findCR(b, lineStart, b.count)
            guard lineEnd + 1 < b.count, b[lineEnd + 1] == 10 else { return nil }
            if lineEnd == lineStart { return (n, lineStart - 2, kept, length) }
            guard n < table.count else { return nil }
            var nameEnd = lineStart
            while nameEnd < lineEnd, isTokenByte(b[nameEnd]) { nameEnd += 1 }
            let valueStart = nameEnd + 2
            guard nameEnd > lineStart, valueStart <= lineEnd, b[nameEnd] == 58, b[nameEnd + 1] == 32 else {
                return nil
            }
            if valueStart < lineEnd {
                let first = b[valueStart], last = b[lineEnd - 1]
                guard first != 32, first != 9, last != 32, last != 9 else { return nil }
            }
            let name = UnsafeBufferPointer(rebasing: b[lineStart..<nameEnd])
            if let kind = KeptHeader.kind(name) {
                kept.note(kind, at: n)
            } else if isContentLength(b, lineStart, nameEnd) {
                guard let value = decimal(b, valueStart, lineEnd), length == nil || length == value else {
                    return nil
                }
                length = value
            }
            table[n] = SIPHead.Line(start: lineStart - from, nameEnd: nameEnd - from, valueStart: valueStart - from,
                                    end: lineEnd - from)
            n += 1
            lineStart = lineEnd + 2
        }
    }
}
