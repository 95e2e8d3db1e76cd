/// Cuts SIP messages out of a TCP byte stream that arrives in arbitrary chunks, framed by Content-Length (§18.3).
/// CRLF keep-alives between messages (RFC 5626 §4.4.1) are skipped.
///
/// Any error here breaks the stream (`isBroken`): without a trustworthy head, Content-Length cannot frame what
/// follows, so the caller closes the connection. Messages come back unvalidated: call `SIPParser.validate` before
/// acting on one (a request that fails it is answered 400 where a Via allows, §8.2.2).
/// Memory: an idle parser holds no buffer. Not thread-safe; one per connection.
public struct SIPStreamParser: Sendable {
    public let maxHeadBytes: Int
    public let maxBodyBytes: Int
    private var buffer: [UInt8] = []
    private var index = 0
    /// Where the search for the head's end resumes, so a head arriving byte by byte is scanned once.
    private var scanned = 0
    /// Set once `next()` has thrown; every later call throws again.
    public private(set) var isBroken: SIPParseError?

    public init(maxHeadBytes: Int = SIPParser.defaultMaxHeadBytes, maxBodyBytes: Int = SIPParser.defaultMaxBodyBytes) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }

    public var bufferedBytes: Int { buffer.count - index }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if index == buffer.count && index > 0 {
            buffer = []
            index = 0
            scanned = 0
        }
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next whole message, nil when more bytes are needed.
    public mutating func next() throws(SIPParseError) -> SIPMessage? {
        if let isBroken { throw isBroken }
        do {
            return try cut()
        } catch {
            isBroken = error
            buffer = []
            index = 0
            scanned = 0
            throw error
        }
    }

    private mutating func cut() throws(SIPParseError) -> SIPMessage? {
        while index + 1 < buffer.count, buffer[index] == 13, buffer[index + 1] == 10 {
            index += 2
            scanned = max(scanned, index)
        }
        let found = buffer.withUnsafeBufferPointer { all in
            SIPParser.headEnd(all, from: max(index, scanned - 3))
        }
        guard let end = found else {
            scanned = buffer.count
            if buffer.count - index > maxHeadBytes { throw .headTooLarge(limit: maxHeadBytes) }
            return nil
        }
        guard end - index <= maxHeadBytes else { throw .headTooLarge(limit: maxHeadBytes) }
        let head = try buffer.withUnsafeBufferPointer { all throws(SIPParseError) in
            try SIPParser.parseHead(UnsafeBufferPointer(rebasing: all[index..<end]))
        }
        guard let length = try SIPParser.contentLength(head) else {
            throw .missingContentLength
        }
        guard length <= maxBodyBytes else { throw .bodyTooLarge(limit: maxBodyBytes) }
        let bodyStart = end + 4
        guard buffer.count - bodyStart >= length else { return nil }
        var message = head
        message.body = Array(buffer[bodyStart..<(bodyStart + length)])
        consume(upTo: bodyStart + length)
        return message
    }

    private mutating func consume(upTo offset: Int) {
        index = offset
        scanned = offset
        if index == buffer.count {
            buffer = []
            index = 0
            scanned = 0
        } else if index >= 64 * 1024 {
            buffer.removeFirst(index)
            index = 0
            scanned = 0
        }
    }
}
