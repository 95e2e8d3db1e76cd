import Bytes

/// Reads HTTP/1.1 responses from bytes as they arrive (RFC 9112): the status line, the headers, then the body
/// framed by Content-Length, chunked transfer coding or the end of the connection; interim 1xx responses are
/// skipped. A value owned by one connection; it keeps only an unfinished line between reads, so the connection
/// can hand it its read buffer in place.
///
/// Strictness: what a server may not send (a space before a header's colon, obsolete line folding, a
/// Content-Length that is not one number, a chunk-size line that is not hexadecimal) is an error naming the
/// part; a bare LF ending a line is accepted, as RFC 9112 §2.2 allows a recipient to.
public struct HTTP1ResponseParser: Sendable {
    public struct Limits: Sendable {
        /// Status line and headers together.
        public var maxHeadBytes = 64 * 1024
        public var maxBodyBytes = 4 << 20
        public init() {}
    }

    enum State: Equatable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
        case complete
    }

    public let limits: Limits
    var state = State.head
    /// An unfinished line (or head) carried over to the next read.
    var pending = ByteQueue()
    var status = 0
    var headers: [WireHeader] = []
    var body: [UInt8] = []
    var contentLength: Int?
    /// What Transfer-Encoding said: nil when absent, true when its last coding is chunked.
    var chunkedCoding: Bool?
    /// Connection header tokens seen: 1 close, 2 keep-alive.
    var connectionTokens: UInt8 = 0
    /// Whether the connection may carry the next request once this response is complete.
    public internal(set) var keepAlive = true
    /// The request was HEAD: the response has no body whatever its headers say.
    var noBody = false
    /// Keep the headers as strings in the response (an allocation per header; most load requests read only the
    /// status).
    var collectsHeaders = true
    /// Some byte of this response has arrived (a reused connection that closes before any may be retried).
    public internal(set) var receivedAny = false
    /// Bytes of the last `feed` left over after the response completed.
    public internal(set) var excessBytes = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Whether the response is complete (take it with `takeResponse`).
    public var isComplete: Bool { state == .complete }

    /// Prepares for the response to the next request; `head` when that request is HEAD.
    public mutating func reset(head: Bool = false, collectsHeaders: Bool = true) {
        self.collectsHeaders = collectsHeaders
        pending.removeAll()
        receivedAny = false
        excessBytes = 0
        resetHead(noBody: head)
    }

    /// Forgets the head read so far (also after an interim 1xx response, mid-read, so `pending` is left alone).
    mutating func resetHead(noBody: Bool) {
        state = .head
        status = 0
        headers = []
        body = []
        contentLength = nil
        chunkedCoding = nil
        connectionTokens = 0
        keepAlive = true
        self.noBody = noBody
    }

    /// Parses `input`; true once the response is complete. Bytes beyond it are counted in `excessBytes`.
    public mutating func feed(_ input: UnsafeRawBufferPointer) throws(WireResponseError) -> Bool {
        guard input.count > 0, state != .complete else {
            excessBytes += state == .complete ? input.count : 0
            return state == .complete
        }
        receivedAny = true
        if pending.isEmpty {
            let used = try parse(input)
            if state == .complete {
                excessBytes = input.count - used
            } else if used < input.count {
                pending.append(UnsafeRawBufferPointer(rebasing: input[used...]))
            }
        } else {
            pending.append(input)
            let used = try pending.withReadableBytes { (bytes) throws(WireResponseError) -> Int in try parse(bytes) }
            if state == .complete { excessBytes = pending.count - used }
            pending.consume(state == .complete ? pending.count : used)
        }
        // Only an unfinished line waits here: a head, a chunk-size line or a trailer that never ends is cut off.
        if pending.count > limits.maxHeadBytes {
            if state == .head { throw .headTooLarge(limit: limits.maxHeadBytes) }
            throw .chunkSize("a line longer than \(limits.maxHeadBytes) bytes")
        }
        return state == .complete
    }

    /// The stream ended: true when that completes the response (a body framed by the connection's end); false when
    /// no byte of a response had arrived (the server closed an idle or fresh connection); else what was cut.
    public mutating func finishAtEndOfStream() throws(WireResponseError) -> Bool {
        switch state {
        case .complete: return true
        case .untilClose:
            state = .complete
            return true
        case .head where !receivedAny: return false
        case .head: throw .truncated("in the status line or headers")
        case .fixed(let remaining): throw .truncated("\(remaining) bytes of a Content-Length body missing")
        case .chunkSize, .chunkData, .chunkEnd: throw .truncated("in a chunked body")
        case .trailers: throw .truncated("in the trailers of a chunked body")
        }
    }

    /// The complete response; the parser must be `reset` before the next.
    public mutating func takeResponse() -> WireResponse {
        var taken: [UInt8] = []
        swap(&taken, &body)
        return WireResponse(status: status, headers: headers, body: taken)
    }

    // MARK: - Parsing

    /// Parses as far as `bytes` go; returns how many it used (an unfinished line is left unused).
    private mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(WireResponseError) -> Int {
        var at = 0
        while at < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[at...])
            switch state {
            case .head:
                guard let used = try parseHead(rest) else { return at }
                at += used
            case .fixed(let remaining):
                let take = min(remaining, rest.count)
                try appendBody(UnsafeRawBufferPointer(rebasing: rest[..<take]))
                at += take
                state = remaining == take ? .complete : .fixed(remaining: remaining - take)
            case .chunkSize:
                guard let used = try parseChunkSize(rest) else { return at }
                at += used
            case .chunkData(let remaining):
                let take = min(remaining, rest.count)
                try appendBody(UnsafeRawBufferPointer(rebasing: rest[..<take]))
                at += take
                state = remaining == take ? .chunkEnd : .chunkData(remaining: remaining - take)
            case .chunkEnd:
                guard let used = try parseChunkEnd(rest) else { return at }
                at += used
            case .trailers:
                guard let used = Self.lineEnd(rest) else { return at }
                at += used.next
                if used.length == 0 { state = .complete }
            case .untilClose:
                try appendBody(rest)
                at = bytes.count
            case .complete:
                return at
            }
            if state == .complete { return at }
        }
        return at
    }

    private mutating func appendBody(_ bytes: UnsafeRawBufferPointer) throws(WireResponseError) {
        guard body.count + bytes.count <= limits.maxBodyBytes else { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
        body.append(contentsOf: bytes)
    }

    /// The next line in `bytes`: its length without the line ending, and where the line after it starts.
    static func lineEnd(_ bytes: UnsafeRawBufferPointer) -> (length: Int, next: Int)? {
        guard let newline = bytes.firstIndex(of: 0x0A) else { return nil }
        let length = newline > 0 && bytes[newline - 1] == 0x0D ? newline - 1 : newline
        return (length, newline + 1)
    }

    private mutating func parseChunkSize(_ bytes: UnsafeRawBufferPointer) throws(WireResponseError) -> Int? {
        guard let line = Self.lineEnd(bytes) else {
            if bytes.count > 1024 { throw .chunkSize(WireResponseError.quote(bytes)) }
            return nil
        }
        var size = 0
        var digits = 0
        for i in 0..<line.length {
            let byte = bytes[i]
            guard let value = Self.hexValue(byte) else {
                // Extensions (`;name=value`) and whitespace before them follow the size.
                guard digits > 0, byte == 0x3B || byte == 0x20 || byte == 0x09 else {
                    throw .chunkSize(WireResponseError.quote(UnsafeRawBufferPointer(rebasing: bytes[..<line.length])))
                }
                break
            }
            digits += 1
            size = size &* 16 &+ Int(value)
            guard digits <= 15 else {
                throw .chunkSize(WireResponseError.quote(UnsafeRawBufferPointer(rebasing: bytes[..<line.length])))
            }
        }
        guard digits > 0 else {
            throw .chunkSize(WireResponseError.quote(UnsafeRawBufferPointer(rebasing: bytes[..<line.length])))
        }
        if size > limits.maxBodyBytes - body.count { throw .bodyTooLarge(limit: limits.maxBodyBytes) }
        state = size == 0 ? .trailers : .chunkData(remaining: size)
        return line.next
    }

    private mutating func parseChunkEnd(_ bytes: UnsafeRawBufferPointer) throws(WireResponseError) -> Int? {
        guard let first = bytes.first else { return nil }
        if first == 0x0A {
            state = .chunkSize
            return 1
        }
        guard first == 0x0D else { throw .chunkTerminator }
        guard bytes.count >= 2 else { return nil }
        guard bytes[1] == 0x0A else { throw .chunkTerminator }
        state = .chunkSize
        return 2
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }
}
