/// Reads SIP messages from bytes: `parse(datagram:)` for UDP, where one datagram is one message, and
/// `SIPStreamParser` for TCP, where Content-Length frames the stream (§18.3).
public enum SIPParser {
    /// The most bytes a head (start line and headers) may take before its blank line.
    public static let defaultMaxHeadBytes = 16 * 1024
    public static let defaultMaxBodyBytes = 64 * 1024

    /// One datagram as one message. A missing Content-Length means the body runs to the datagram's end; a longer
    /// one is an error; extra bytes past it are dropped (§18.3). The message comes back unvalidated: call
    /// `validate` before acting on it.
    public static func parse(datagram bytes: UnsafeBufferPointer<UInt8>, maxBodyBytes: Int = defaultMaxBodyBytes,
                             strings: SIPStringCache? = nil) throws(SIPParseError) -> SIPMessage {
        var start = 0
        while start + 1 < bytes.count, bytes[start] == 13, bytes[start + 1] == 10 { start += 2 }
        // The head read line by line up to its blank line, in one pass (`headEnd` scanned it first, once more).
        let rest = UnsafeBufferPointer(rebasing: bytes[start...])
        if let quick = try quickHead(rest, strings: strings, maxBodyBytes: maxBodyBytes) { return quick }
        var blank = -1
        var message: SIPMessage
        do {
            message = try parseHead(rest, blankLine: &blank, strings: strings)
        } catch {
            // A head without its blank line is truncated, whatever else is wrong in it (as the two passes said).
            if headEnd(bytes, from: start) == nil { throw .truncatedHead }
            throw error
        }
        guard blank >= 0 else { throw .truncatedHead }
        let bodyStart = start + blank + 4
        let available = bytes.count - bodyStart
        let length = try contentLength(message) ?? available
        guard length <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
        guard length <= available else { throw .truncatedBody }
        message.body = Array(bytes[bodyStart..<(bodyStart + length)])
        return message
    }

    public static func parse(datagram bytes: [UInt8]) throws(SIPParseError) -> SIPMessage {
        try bytes.withUnsafeBufferPointer { p throws(SIPParseError) in try parse(datagram: p) }
    }

    /// The offset of the CRLFCRLF that ends the head, searching from `from`.
    static func headEnd(_ bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var i = ValueBytes.findCR(bytes, from, bytes.count)
        while i + 3 < bytes.count {
            if bytes[i + 1] == 10, bytes[i + 2] == 13, bytes[i + 3] == 10 { return i }
            i = ValueBytes.findCR(bytes, i + 1, bytes.count)
        }
        return nil
    }

    /// The Content-Length value, nil when absent; several lines must agree.
    /// One pass over the lines, names compared as `SIPHeaderName.contentLength.matches` does (full or `l`, ASCII
    /// case folded): two lookups through the static name scanned the head twice and copied the name each time.
    static func contentLength(_ message: SIPMessage) throws(SIPParseError) -> Int? {
        let head = message.head
        var found: Int?
        let bad = head.bytes.withUnsafeBufferPointer { b -> Bool in
            for line in head.lines where isContentLength(b, line.start, line.nameEnd) {
                guard let value = decimal(b, line.valueStart, line.end), found == nil || found == value else {
                    return true
                }
                found = value
            }
            return false
        }
        if bad { throw .badContentLength }
        return found
    }

    static func isContentLength(_ b: ValueBytes.Bytes, _ lo: Int, _ hi: Int) -> Bool {
        if hi - lo == 1 { return b[lo] | 0x20 == 0x6C }  // l
        let name: StaticString = "content-length"
        guard hi - lo == name.utf8CodeUnitCount else { return false }
        for k in 0..<(hi - lo) {
            let a = b[lo + k], l = name.utf8Start[k]
            if a != l, !(a >= 0x41 && a <= 0x5A && a | 0x20 == l) { return false }
        }
        return true
    }

    static func decimal(_ b: ValueBytes.Bytes, _ lo: Int, _ hi: Int) -> Int? {
        guard hi > lo, hi - lo <= 9 else { return nil }
        var value = 0
        for i in lo..<hi {
            let byte = b[i]
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    /// The checks §8.1.1 and §8.2.2 make of every message: Via, From, To, Call-ID and CSeq present, CSeq well
    /// formed and (for a request) naming the request's method.
    public static func validate(_ message: SIPMessage) throws(SIPParseError) {
        if message.hasFields {
            if let missing = message.keptMissing { throw .missingHeader(missing.canonical) }
        } else {
            for name in [SIPHeaderName.via, .from, .to, .callID, .cseq] where message.header(name) == nil {
                throw .missingHeader(name.canonical)
            }
        }
        guard let cseq = message.cseq else { throw .badCSeq }
        if let method = message.method, method != cseq.method, method != .ack || cseq.method != .invite {
            throw .badCSeq
        }
    }

    // MARK: - Head

    /// Parses the head (start line, CRLF-separated header lines, folded lines joined); `bytes` ends before the
    /// blank line.
    static func parseHead(_ bytes: UnsafeBufferPointer<UInt8>) throws(SIPParseError) -> SIPMessage {
        var none = -2
        return try parseHead(bytes, blankLine: &none)
    }

    /// `parseHead` over bytes that go on past the head when `blankLine` is not -2: the lines are read up to the
    /// first empty one, and `blankLine` is set to where the CRLFCRLF before it starts (left -1 when none came).
    static func parseHead(_ bytes: UnsafeBufferPointer<UInt8>, blankLine: inout Int,
                          strings: SIPStringCache? = nil) throws(SIPParseError) -> SIPMessage {
        let findsBlank = blankLine != -2
        var lineStart = 0
        var startLine: SIPMessage.StartLine?
        // Whether `startLine` is read: testing the optional itself copied and destroyed it on every line (its
        // strings retained and released through the runtime's generic witnesses, ~13 k instructions a call).
        var started = false
        var head = SIPHead()
        head.reserve(bytes: bytes.count + 16, lines: 12)
        // Lines already as `Name: value` (one space, nothing trimmed) are copied in runs, one copy per run, as
        // they stand in the datagram; any other is written normalized, and a folded one joined, on its own.
        var run = (lo: 0, hi: 0)
        func flush() {
            guard run.lo < run.hi else { return }
            head.appendBytes(UnsafeBufferPointer(rebasing: bytes[run.lo..<run.hi]))
            if run.hi == bytes.count { head.appendBytes(crlf) }  // the last line's CRLF is the blank line's
            run = (0, 0)
        }
        while lineStart <= bytes.count {
            var lineEnd = ValueBytes.findCR(bytes, lineStart, bytes.count)
            while lineEnd + 1 < bytes.count, bytes[lineEnd + 1] != 10 {
                lineEnd = ValueBytes.findCR(bytes, lineEnd + 1, bytes.count)
            }
            if lineEnd + 1 >= bytes.count { lineEnd = bytes.count }
            if findsBlank, lineEnd == lineStart, lineEnd < bytes.count, started {
                blankLine = lineStart - 2
                break
            }
            let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            if !started {
                startLine = try parseStartLine(line, strings: strings)
                started = true
            } else if let first = line.first, first == 32 || first == 9 {
                guard head.count > 0 else { throw .badHeaderLine }
                flush()
                let (lo, hi) = ValueBytes.trim(line, 0, line.count)
                head.fold(UnsafeBufferPointer(rebasing: line[lo..<hi]))
            } else {
                let (nameEnd, colon, value) = try parseHeaderLine(line)
                if colon == nameEnd, value.lo == colon + 2, value.hi == line.count, line[colon + 1] == 32 {
                    if run.lo == run.hi { run = (lineStart, lineStart) }
                    let base = head.byteCount - run.lo  // the run lands at `byteCount`: `lineStart` at this + it
                    head.appendIndex(SIPHead.Line(start: base + lineStart, nameEnd: base + lineStart + nameEnd,
                                                  valueStart: base + lineStart + value.lo,
                                                  end: base + lineStart + value.hi))
                    run.hi = min(lineEnd + 2, bytes.count)
                } else {
                    flush()
                    head.append(name: UnsafeBufferPointer(rebasing: line[..<nameEnd]),
                                value: UnsafeBufferPointer(rebasing: line[value.lo..<value.hi]))
                }
            }
            lineStart = lineEnd + 2
        }
        flush()
        guard let startLine else { throw .badStartLine }
        var message = SIPMessage(startLine: startLine, head: head)
        message.keepFields(strings: strings)
        return message
    }

    private static var crlf: UnsafeBufferPointer<UInt8> {
        let text: StaticString = "\r\n"
        return UnsafeBufferPointer(start: text.utf8Start, count: 2)
    }

    /// The start line; a request's URI taken from `strings` when it holds the same bytes (an agent's requests
    /// name its own Contact URI, the same string each time: one allocation fewer a request; issue 33).
    static func parseStartLine(_ line: UnsafeBufferPointer<UInt8>,
                               strings: SIPStringCache? = nil) throws(SIPParseError) -> SIPMessage.StartLine {
        guard let firstSpace = line.firstIndex(of: 32) else { throw .badStartLine }
        let first = UnsafeBufferPointer(rebasing: line[..<firstSpace])
        if isVersion(first) {
            let rest = line[(firstSpace + 1)...]
            let codeEnd = rest.firstIndex(of: 32) ?? line.count
            let code = line[(firstSpace + 1)..<codeEnd]
            guard code.count == 3, code.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { throw .badStatusCode }
            let status = code.reduce(0) { $0 * 10 + Int($1 - 48) }
            guard status >= 100, status <= 699 else { throw .badStatusCode }
            let reason = codeEnd < line.count ? reasonText(UnsafeBufferPointer(rebasing: line[(codeEnd + 1)...]),
                                                           status: status) : ""
            return .response(status: status, reason: reason)
        }
        guard !first.isEmpty, first.allSatisfy(isTokenByte) else { throw .badStartLine }
        guard let lastSpace = line.lastIndex(of: 32), lastSpace > firstSpace + 1 else { throw .badStartLine }
        let version = UnsafeBufferPointer(rebasing: line[(lastSpace + 1)...])
        guard version.count >= 4, version[0] == 0x53, version[1] == 0x49, version[2] == 0x50, version[3] == 0x2F
        else { throw .badStartLine }  // "SIP/"
        guard isVersion(version) else { throw .unsupportedVersion }
        let uri = line[(firstSpace + 1)..<lastSpace]
        guard !uri.contains(32), uri.contains(58) else { throw .badStartLine }
        let uriText = strings?.string(line, firstSpace + 1, lastSpace) ?? text(UnsafeBufferPointer(rebasing: uri))
        return .request(method: SIPMethod.named(first), uri: uriText)
    }

    /// One `name: value` line's name end, colon and trimmed value (offsets into `line`); the name must be a token.
    static func parseHeaderLine(_ line: UnsafeBufferPointer<UInt8>) throws(SIPParseError)
        -> (nameEnd: Int, colon: Int, value: (lo: Int, hi: Int)) {
        // One walk: the token, any spaces, then the colon (what finding the first colon, trimming before it and
        // checking the name's bytes decided, in three).
        var nameEnd = 0
        while nameEnd < line.count, isTokenByte(line[nameEnd]) { nameEnd += 1 }
        var colon = nameEnd
        while colon < line.count, line[colon] == 32 || line[colon] == 9 { colon += 1 }
        guard nameEnd > 0, colon < line.count, line[colon] == 58 else { throw .badHeaderLine }
        let (lo, hi) = ValueBytes.trim(line, colon + 1, line.count)
        return (nameEnd, colon, (lo, hi))
    }

    private static func isVersion(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let version: StaticString = "SIP/2.0"  // compared byte by byte: `elementsEqual` over `utf8` cost ~300
        guard bytes.count == 7 else { return false }
        for k in 0..<7 where bytes[k] != version.utf8Start[k] { return false }
        return true
    }

    /// RFC 3261 §25.1 token characters: alphanumerics and `-.!%*_+`'~`, as a bit per byte below 128 (the parser
    /// asks for every byte of every header name; a switch of ranges cost ~10 instructions a byte).
    static func isTokenByte(_ b: UInt8) -> Bool {
        // Bits 0x21 !, 0x25 %, 0x27 ', 0x2A *, 0x2B +, 0x2D -, 0x2E ., 0x30-0x39 digits.
        let low: UInt64 = 0x03FF_6CA2_0000_0000
        // Bits 0x41-0x5A upper, 0x5F _, 0x60 `, 0x61-0x7A lower, 0x7E ~ (offsets from 0x40).
        let high: UInt64 = 0x47FF_FFFF_87FF_FFFE
        return b < 64 ? (low >> UInt64(b)) & 1 == 1 : b < 128 && (high >> UInt64(b - 64)) & 1 == 1
    }

    /// A response's reason: the literal `SIPStatus.reason` gives when the bytes are that phrase (nearly every
    /// response: no `String` made and its UTF-8 checked per message), else the bytes as a new one.
    private static func reasonText(_ bytes: UnsafeBufferPointer<UInt8>, status: Int) -> String {
        let known = SIPStatus.reason(status)
        if ValueBytes.with(known, { $0.elementsEqual(bytes) }) { return known }
        return text(bytes)
    }

    private static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
