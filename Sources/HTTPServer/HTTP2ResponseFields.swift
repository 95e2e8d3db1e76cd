import CLibnghttp2

/// Lays out a response's header block for `nghttp2_submit_response`, in one byte buffer kept per connection,
/// so answering a stream allocates nothing once the scratch has grown.
///
/// Fields in order: `:status`, the handler's headers (names lowercased; connection-specific ones, pseudo-headers
/// and empty names dropped; CR, LF and NUL removed from values), `server: callstorm` unless the handler set a
/// server, and `content-length`. The fixed names are copied in as one block: writing them byte by byte, and
/// testing every handler header name through Strings, was a visible share of the gateway's cost per push.
struct HTTP2ResponseFields {
    private var storage: [UInt8] = []
    private var spans: [Span] = []
    private var vectors: [nghttp2_nv] = []

    private typealias Span = (name: Range<Int>, value: Range<Int>, flags: UInt8)

    /// Response fields whose value is new in every response (APNs message ids), sent without HPACK indexing:
    /// indexed, each pushed a never-reused entry through the dynamic table, and nghttp2's encoder searched that
    /// table of ids on every field (about a hundred memcmp calls a push under callgrind, 3,000 instructions).
    private static let unindexed: [StaticString] = ["apns-id", "apns-unique-id"]

    /// `:status` (0..<7), `server` (7..<13), `callstorm` (13..<22) and `content-length` (22..<36).
    private static let fixed = Array(":statusservercallstormcontent-length".utf8)

    /// Calls `use` with the name/value vectors for `response` with `status` (200...999), valid only inside it.
    mutating func withVectors<R>(status: Int, response: HTTPResponse,
                                 _ use: (UnsafeMutablePointer<nghttp2_nv>, Int) -> R) -> R {
        // Taken out of self (not copied), so appending reuses their capacity instead of copying on write.
        var storage: [UInt8] = []
        var spans: [Span] = []
        var vectors: [nghttp2_nv] = []
        swap(&storage, &self.storage)
        swap(&spans, &self.spans)
        swap(&vectors, &self.vectors)
        defer {
            self.storage = storage
            self.spans = spans
            self.vectors = vectors
        }
        storage.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        vectors.removeAll(keepingCapacity: true)
        storage.append(contentsOf: Self.fixed)
        let statusStart = storage.count
        storage.append(UInt8(ascii: "0") + UInt8(status / 100 % 10))
        storage.append(UInt8(ascii: "0") + UInt8(status / 10 % 10))
        storage.append(UInt8(ascii: "0") + UInt8(status % 10))
        let none = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        spans.append((0..<7, statusStart..<storage.count, none))
        var hasServer = false
        for header in response.headers {
            if let span = Self.append(header, to: &storage, hasServer: &hasServer) { spans.append(span) }
        }
        if !hasServer { spans.append((7..<13, 13..<22, none)) }
        let lengthStart = storage.count
        Self.appendDecimal(response.body.count, to: &storage)
        spans.append((22..<36, lengthStart..<storage.count, none))
        return storage.withUnsafeMutableBufferPointer { raw in
            for span in spans {
                vectors.append(nghttp2_nv(name: raw.baseAddress! + span.name.lowerBound,
                                          value: raw.baseAddress! + span.value.lowerBound,
                                          namelen: span.name.count, valuelen: span.value.count,
                                          flags: span.flags))
            }
            return vectors.withUnsafeMutableBufferPointer { use($0.baseAddress!, $0.count) }
        }
    }

    /// Appends one handler header; nil when it is not sent (connection-specific, pseudo-header, empty name).
    private static func append(_ header: HTTPHeader, to storage: inout [UInt8], hasServer: inout Bool) -> Span? {
        var name = header.name
        var value = header.value
        let nameStart = storage.count
        let kept = name.withUTF8 { bytes -> Bool in
            if connectionSpecific(bytes) { return false }
            if equalsIgnoringCase(bytes, "server") { hasServer = true }
            if bytes.isEmpty || bytes[0] == UInt8(ascii: ":") { return false }
            storage.append(contentsOf: bytes)
            if bytes.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) {
                for i in nameStart..<storage.count { storage[i] = asciiLower(storage[i]) }
            }
            return true
        }
        guard kept else { return nil }
        let nameEnd = storage.count
        let flags = storage.withUnsafeBufferPointer { all in
            let name = UnsafeBufferPointer(rebasing: all[nameStart..<nameEnd])
            return unindexed.contains { equalsIgnoringCase(name, $0) }
                ? UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) : UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        }
        let valueStart = storage.count
        value.withUTF8 { bytes in
            if bytes.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                // Rare: a handler put CR, LF or NUL in a value; drop them rather than let nghttp2 refuse it.
                storage.append(contentsOf: bytes.lazy.filter { $0 != 0x0D && $0 != 0x0A && $0 != 0 })
            } else {
                storage.append(contentsOf: bytes)
            }
        }
        return (nameStart..<valueStart, valueStart..<storage.count, flags)
    }

    private static func appendDecimal(_ number: Int, to storage: inout [UInt8]) {
        let start = storage.count
        var n = max(0, number)
        repeat {
            storage.append(UInt8(ascii: "0") + UInt8(n % 10))
            n /= 10
        } while n > 0
        storage[start...].reverse()
    }

    /// Framing and hop-by-hop fields HTTP/2 forbids; the server frames the body itself.
    private static func connectionSpecific(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 7: return equalsIgnoringCase(name, "upgrade")
        case 10: return equalsIgnoringCase(name, "connection") || equalsIgnoringCase(name, "keep-alive")
        case 14: return equalsIgnoringCase(name, "content-length")
        case 16: return equalsIgnoringCase(name, "proxy-connection")
        case 17: return equalsIgnoringCase(name, "transfer-encoding")
        default: return false
        }
    }

    /// Whether `bytes` equal the lowercase `lower`, ignoring ASCII case.
    private static func equalsIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: StaticString) -> Bool {
        guard bytes.count == lower.utf8CodeUnitCount else { return false }
        let expected = lower.utf8Start
        for i in 0..<bytes.count where asciiLower(bytes[i]) != expected[i] { return false }
        return true
    }
}
