// MARK: - Parser output

/// One request as the HTTP/1.1 parser produced it: the protocol-agnostic part plus the framing facts the
/// connection needs to answer it.
struct HTTP1ParsedRequest {
    var method: String
    var target: String
    var headers: [HTTPHeader]
    var body: [UInt8]
    /// False when the connection must close after the response (`Connection: close`, or HTTP/1.0 without
    /// `Connection: keep-alive`).
    var keepAlive: Bool
    /// HTTP/1.0 client that asked for keep-alive: the response must say `Connection: keep-alive` back.
    var echoKeepAlive: Bool
    /// `HEAD`: the response carries `Content-Length` but no body.
    var isHead: Bool
}

/// Why a request was rejected before it reached the handler. Each maps to the status the client gets; the
/// connection closes afterwards, since the byte stream can no longer be trusted.
enum HTTP1ParseError: Error, Equatable {
    case badRequest(String)
    case headersTooLarge
    case bodyTooLarge
    case versionNotSupported
    case unsupportedTransferCoding

    var status: Int {
        switch self {
        case .badRequest: return 400
        case .headersTooLarge: return 431
        case .bodyTooLarge: return 413
        case .versionNotSupported: return 505
        case .unsupportedTransferCoding: return 501
        }
    }
}

// MARK: - Parser

/// An incremental HTTP/1.1 request parser working on raw bytes.
///
/// Why incremental: requests arrive in arbitrary pieces, and a body should not have to sit whole in the
/// read buffer. The parser consumes what it can from `input` starting at `index`, advances `index` past it,
/// and keeps partial state (the head so far, body bytes so far) itself; an incomplete line is left
/// unconsumed for the next call. Strict where ambiguity would allow request smuggling (both
/// `Content-Length` and `Transfer-Encoding`, conflicting lengths, obsolete line folding), lenient about bare
/// LF line ends. Not thread-safe: one parser per connection, used on its loop thread.
/// More than 15 stored properties on purpose: the partial state of one request head and body between reads, each
/// read on the hot path of every request.
struct HTTP1RequestParser {
    enum Event {
        /// Every available byte was consumed or an incomplete line remains; call again with more input.
        case needMore
        /// The head of a request carrying `Expect: 100-continue` is complete; its body follows. The caller
        /// decides whether to send `100 Continue` (pointless if the body is already arriving).
        case expectContinue
        case request(HTTP1ParsedRequest)
        /// The stream is unusable from here on; every later call returns the same failure.
        case failure(HTTP1ParseError)
    }

    private enum State {
        case requestLine
        case headers
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case failed(HTTP1ParseError)
    }

    /// Longest chunk-size line (size plus extensions) accepted; real clients send a few bytes.
    static let maxChunkLineBytes = 1024

    let maxHeaderBytes: Int
    let maxBodyBytes: Int

    private var state = State.requestLine
    /// Bytes of the current head (or trailer section) consumed so far, for the `maxHeaderBytes` limit.
    private var headBytes = 0
    private var method = ""
    private var target = ""
    private var isHTTP10 = false
    private var headers: [HTTPHeader] = []
    /// Header lines this connection sent before, byte for byte, with their fields: a line that repeats (a
    /// client's host, authorization, content type) is neither checked nor made into Strings again.
    private var lineCache = HTTP1LineCache()
    private var body: [UInt8] = []
    private var contentLength: Int?
    private var sawTransferEncoding = false
    private var transferCodingsChunkedOnly = false
    private var transferCodingsEndChunked = false
    private var transferCodingLines = 0
    private var connectionClose = false
    private var connectionKeepAlive = false
    private var expectsContinue = false

    init(maxHeaderBytes: Int, maxBodyBytes: Int) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// Whether the parser is between requests (nothing of a next request consumed yet). The connection uses
    /// it to tell a clean EOF from one in the middle of a request.
    var isIdle: Bool {
        if case .requestLine = state, headBytes == 0 { return true }
        return false
    }

    /// Parses from `input[index...]`, advancing `index` over what it consumed, until it has an event.
    /// Over 80 lines on purpose: one loop over the parser's states, each branch short, on every request's hot path;
    /// split into functions it would pass the buffer and index through each hop for nothing.
    mutating func next(_ input: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Event {
        while true {
            switch state {
            case .failed(let error):
                return .failure(error)

            case .requestLine, .headers, .trailers:
                guard let lineEnd = findLineFeed(input, from: index) else {
                    if headBytes + (input.count - index) > maxHeaderBytes {
                        return fail(.headersTooLarge)
                    }
                    // The incomplete line stays unconsumed, to be scanned again with more bytes.
                    return .needMore
                }
                let lineBytes = lineEnd + 1 - index
                if headBytes + lineBytes > maxHeaderBytes {
                    return fail(.headersTooLarge)
                }
                headBytes += lineBytes
                var end = lineEnd
                if end > index && input[end - 1] == 0x0D { end -= 1 }
                let start = index
                index = lineEnd + 1
                if let event = handleLine(input, start, end) {
                    return event
                }

            case .fixedBody(let remaining):
                let available = input.count - index
                if available == 0 { return .needMore }
                let take = min(available, remaining)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<(index + take)]))
                index += take
                if remaining - take == 0 {
                    return .request(finishRequest())
                }
                state = .fixedBody(remaining: remaining - take)

            case .chunkSize:
                guard let lineEnd = findLineFeed(input, from: index) else {
                    if input.count - index > Self.maxChunkLineBytes {
                        return fail(.badRequest("chunk size line too long"))
                    }
                    return .needMore
                }
                if lineEnd + 1 - index > Self.maxChunkLineBytes {
                    return fail(.badRequest("chunk size line too long"))
                }
                var end = lineEnd
                if end > index && input[end - 1] == 0x0D { end -= 1 }
                let start = index
                index = lineEnd + 1
                switch parseChunkSize(input, start, end) {
                case .failure(let error):
                    return fail(error)
                case .success(0):
                    headBytes = 0
                    state = .trailers
                case .success(let size):
                    if size > maxBodyBytes - body.count {
                        return fail(.bodyTooLarge)
                    }
                    state = .chunkData(remaining: size)
                }

            case .chunkData(let remaining):
                let available = input.count - index
                if available == 0 { return .needMore }
                let take = min(available, remaining)
                body.append(contentsOf: UnsafeBufferPointer(rebasing: input[index..<(index + take)]))
                index += take
                state = remaining - take == 0 ? .chunkDataEnd : .chunkData(remaining: remaining - take)

            case .chunkDataEnd:
                let available = input.count - index
                if available == 0 { return .needMore }
                if input[index] == 0x0A {
                    index += 1
                } else if input[index] == 0x0D {
                    if available < 2 { return .needMore }
                    guard input[index + 1] == 0x0A else { return fail(.badRequest("chunk data not followed by CRLF")) }
                    index += 2
                } else {
                    return fail(.badRequest("chunk data not followed by CRLF"))
                }
                state = .chunkSize
            }
        }
    }

    // MARK: - Head

    /// Handles one complete line of the head or trailer section (`end` excludes CR LF). Returns an event
    /// when the line completes something, nil to keep parsing.
    private mutating func handleLine(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Event? {
        switch state {
        case .requestLine:
            if start == end {
                // Robustness (RFC 9112 §2.2): ignore empty lines before a request line.
                return nil
            }
            if let error = parseRequestLine(input, start, end) {
                return fail(error)
            }
            state = .headers
            return nil

        case .headers:
            if start == end {
                return headersComplete()
            }
            if let error = parseHeaderLine(input, start, end) {
                return fail(error)
            }
            return nil

        case .trailers:
            if start == end {
                return .request(finishRequest())
            }
            // Trailer fields are checked for shape and dropped: nothing we serve uses them.
            if input[start] == 0x20 || input[start] == 0x09 || findByte(0x3A, input, start, end) == nil {
                return fail(.badRequest("malformed trailer field"))
            }
            return nil

        default:
            return nil
        }
    }

    private mutating func parseRequestLine(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> HTTP1ParseError? {
        guard let firstSpace = findByte(0x20, input, start, end), firstSpace > start else {
            return .badRequest("request line has no method")
        }
        for i in start..<firstSpace where !isTokenByte(input[i]) {
            return .badRequest("method is not a token")
        }
        let targetStart = firstSpace + 1
        guard let secondSpace = findByte(0x20, input, targetStart, end), secondSpace > targetStart else {
            return .badRequest("request line has no target or version")
        }
        for i in targetStart..<secondSpace where input[i] <= 0x20 || input[i] == 0x7F {
            return .badRequest("target contains a control character")
        }
        // HTTP-version = "HTTP/" DIGIT "." DIGIT, exactly.
        let versionStart = secondSpace + 1
        guard end - versionStart == 8,
              input[versionStart] == 0x48, input[versionStart + 1] == 0x54, input[versionStart + 2] == 0x54,
              input[versionStart + 3] == 0x50, input[versionStart + 4] == 0x2F,
              isDigit(input[versionStart + 5]), input[versionStart + 6] == 0x2E, isDigit(input[versionStart + 7])
        else {
            return .badRequest("malformed HTTP version")
        }
        let major = input[versionStart + 5] - 0x30
        let minor = input[versionStart + 7] - 0x30
        guard major == 1 else { return .versionNotSupported }
        isHTTP10 = minor == 0
        method = makeString(input, start, firstSpace)
        target = makeString(input, targetStart, secondSpace)
        return nil
    }

    private mutating func parseHeaderLine(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> HTTP1ParseError? {
        // A line this connection sent before, byte for byte, parses to the same field (HTTP1LineCache).
        if let field = lineCache.field(input, start, end) {
            if headers.isEmpty { headers.reserveCapacity(8) }
            headers.append(field)
            return nil
        }
        if input[start] == 0x20 || input[start] == 0x09 {
            return .badRequest("obsolete line folding")
        }
        guard let colon = findByte(0x3A, input, start, end), colon > start else {
            return .badRequest("header line without a name and colon")
        }
        for i in start..<colon where !isTokenByte(input[i]) {
            return .badRequest("header name is not a token")
        }
        var valueStart = colon + 1
        var valueEnd = end
        while valueStart < valueEnd && (input[valueStart] == 0x20 || input[valueStart] == 0x09) { valueStart += 1 }
        while valueEnd > valueStart && (input[valueEnd - 1] == 0x20 || input[valueEnd - 1] == 0x09) { valueEnd -= 1 }
        for i in valueStart..<valueEnd {
            let byte = input[i]
            if byte == 0x00 || byte == 0x0D || byte == 0x0A {
                return .badRequest("header value contains NUL or CR")
            }
        }
        let name = makeLowercasedString(input, start, colon)
        let value = makeString(input, valueStart, valueEnd)

        // Framing headers are interpreted here, once, while the bytes are at hand. Told apart on the bytes:
        // a `switch` on the String compared each name with every case (~300 instructions a header line).
        switch FramingHeader(input, start, colon) {
        case .contentLength:
            guard let length = parseContentLength(input, valueStart, valueEnd) else {
                return .badRequest("malformed Content-Length")
            }
            if let previous = contentLength, previous != length {
                return .badRequest("conflicting Content-Length values")
            }
            contentLength = length
        case .transferEncoding:
            sawTransferEncoding = true
            noteTransferCodings(input, valueStart, valueEnd)
        case .connection:
            noteConnectionOptions(input, valueStart, valueEnd)
        case .expect:
            if asciiCaseInsensitiveEquals(value, "100-continue") { expectsContinue = true }
        case nil:
            lineCache.add(input, start, end, HTTPHeader(name: name, value: value))
        }
        // Room for a usual request's headers at once, not grown 1, 2, 4, 8 (four allocations a request).
        if headers.isEmpty { headers.reserveCapacity(8) }
        headers.append(HTTPHeader(name: name, value: value))
        return nil
    }

    /// Decides the body framing once the head is complete. Returns nil when a body follows and parsing
    /// simply goes on.
    private mutating func headersComplete() -> Event? {
        var hasBody = false
        if sawTransferEncoding {
            if contentLength != nil {
                return fail(.badRequest("both Content-Length and Transfer-Encoding"))
            }
            if !transferCodingsEndChunked {
                return fail(.badRequest("Transfer-Encoding does not end in chunked"))
            }
            if !transferCodingsChunkedOnly {
                return fail(.unsupportedTransferCoding)
            }
            state = .chunkSize
            hasBody = true
        } else if let length = contentLength, length > 0 {
            if length > maxBodyBytes {
                return fail(.bodyTooLarge)
            }
            body.reserveCapacity(length)
            state = .fixedBody(remaining: length)
            hasBody = true
        }
        if !hasBody {
            return .request(finishRequest())
        }
        if expectsContinue && !isHTTP10 {
            return .expectContinue
        }
        return nil
    }

    /// Records `Connection` options; `close` wins over `keep-alive` if a client sends both.
    private mutating func noteConnectionOptions(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        var close = false
        var keepAlive = false
        forEachListElement(input, start, end) { s, e in
            if equalsLowercaseASCII(input, s, e, "close") { close = true }
            if equalsLowercaseASCII(input, s, e, "keep-alive") { keepAlive = true }
        }
        connectionClose = connectionClose || close
        connectionKeepAlive = connectionKeepAlive || keepAlive
    }

    /// Records the transfer codings across every `Transfer-Encoding` line: only a lone `chunked` can be
    /// decoded; anything ending in something else leaves the body length unknowable.
    private mutating func noteTransferCodings(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        var count = 0
        var lastIsChunked = false
        var allChunked = true
        forEachListElement(input, start, end) { s, e in
            count += 1
            // Parameters (`;q=…`) are not allowed on chunked; compare the whole element.
            lastIsChunked = equalsLowercaseASCII(input, s, e, "chunked")
            if !lastIsChunked { allChunked = false }
        }
        guard count > 0 else {
            transferCodingsEndChunked = false
            transferCodingsChunkedOnly = false
            return
        }
        // A second line's codings follow the first's.
        let hadEarlierCodings = transferCodingLines > 0
        transferCodingLines += 1
        transferCodingsEndChunked = lastIsChunked
        transferCodingsChunkedOnly = allChunked && count == 1 && !hadEarlierCodings
    }

    // MARK: - Helpers

    private mutating func fail(_ error: HTTP1ParseError) -> Event {
        state = .failed(error)
        return .failure(error)
    }

    /// Builds the finished request and resets for the next one on the same connection.
    private mutating func finishRequest() -> HTTP1ParsedRequest {
        let keepAlive = isHTTP10 ? (connectionKeepAlive && !connectionClose) : !connectionClose
        let request = HTTP1ParsedRequest(
            method: method,
            target: target,
            headers: headers,
            body: body,
            keepAlive: keepAlive,
            echoKeepAlive: isHTTP10 && keepAlive,
            isHead: method == "HEAD"
        )
        state = .requestLine
        headBytes = 0
        method = ""
        target = ""
        isHTTP10 = false
        headers = []
        body = []
        contentLength = nil
        sawTransferEncoding = false
        transferCodingsChunkedOnly = false
        transferCodingsEndChunked = false
        transferCodingLines = 0
        connectionClose = false
        connectionKeepAlive = false
        expectsContinue = false
        return request
    }
}
