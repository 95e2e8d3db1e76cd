#if canImport(Glibc)
import Glibc
#endif

// Byte-level helpers for the HTTP/1.1 parser. Free functions over `UnsafeBufferPointer` so the hot path
// never goes through Foundation or `String` until a value is final.

// MARK: - Searching

/// The index of the next LF at or after `from`, or nil. `memchr` scans a word at a time.
@inline(__always)
func findLineFeed(_ input: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
    guard from < input.count, let base = input.baseAddress else { return nil }
    guard let hit = memchr(base + from, 0x0A, input.count - from) else { return nil }
    return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
}

/// The index of the first `byte` in `input[start..<end]`, or nil.
@inline(__always)
func findByte(_ byte: UInt8, _ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
    var i = start
    while i < end {
        if input[i] == byte { return i }
        i += 1
    }
    return nil
}

// MARK: - Classes of bytes

@inline(__always)
func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

/// `tchar` from RFC 9110 §5.6.2: the bytes allowed in methods and header names.
@inline(__always)
func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A:
        return true
    case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E:
        return true
    default:
        return false
    }
}

@inline(__always)
func hexValue(_ byte: UInt8) -> Int? {
    switch byte {
    case 0x30...0x39: return Int(byte - 0x30)
    case 0x41...0x46: return Int(byte - 0x41 + 10)
    case 0x61...0x66: return Int(byte - 0x61 + 10)
    default: return nil
    }
}

// MARK: - Strings

/// A `String` from `input[start..<end]`; invalid UTF-8 becomes U+FFFD rather than failing.
@inline(__always)
func makeString(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: input[start..<end]), as: UTF8.self)
}

/// A lowercased `String` from token bytes (ASCII only, already checked), built in place without a temporary.
@inline(__always)
func makeLowercasedString(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
    String(unsafeUninitializedCapacity: end - start) { buffer in
        for i in start..<end {
            buffer[i - start] = asciiLower(input[i])
        }
        return end - start
    }
}

// MARK: - Numbers and lists

/// Parses a Content-Length value: digits, or a comma-separated list of identical digit strings (which
/// RFC 9110 §8.6 lets a recipient accept). Values past 10^15 are clamped to `Int.max`, which is over any
/// body limit and so answers 413 rather than overflowing.
func parseContentLength(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
    var result: Int?
    var i = start
    while i <= end {
        while i < end && (input[i] == 0x20 || input[i] == 0x09) { i += 1 }
        var value = 0
        var digits = 0
        while i < end && isDigit(input[i]) {
            if digits < 16 { value = value * 10 + Int(input[i] - 0x30) } else { value = Int.max }
            digits += 1
            i += 1
        }
        while i < end && (input[i] == 0x20 || input[i] == 0x09) { i += 1 }
        guard digits > 0 else { return nil }
        if digits >= 16 { value = Int.max }
        if let previous = result, previous != value { return nil }
        result = value
        if i == end { return result }
        guard input[i] == 0x2C else { return nil }
        i += 1
    }
    return result
}

/// Parses a chunk-size line: hex digits, optional whitespace, optional `;extensions` (ignored).
func parseChunkSize(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Result<Int, HTTP1ParseError> {
    var i = start
    var size = 0
    var digits = 0
    while i < end, let digit = hexValue(input[i]) {
        if digits >= 15 { return .failure(.bodyTooLarge) }
        size = size << 4 | digit
        digits += 1
        i += 1
    }
    guard digits > 0 else { return .failure(.badRequest("chunk size is not hexadecimal")) }
    while i < end && (input[i] == 0x20 || input[i] == 0x09) { i += 1 }
    guard i == end || input[i] == 0x3B else { return .failure(.badRequest("junk after chunk size")) }
    return .success(size)
}

/// Calls `body` with the bounds of each comma-separated, whitespace-trimmed, non-empty element.
@inline(__always)
func forEachListElement(
    _ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ body: (Int, Int) -> Void
) {
    var i = start
    while i < end {
        while i < end && (input[i] == 0x20 || input[i] == 0x09 || input[i] == 0x2C) { i += 1 }
        let elementStart = i
        while i < end && input[i] != 0x2C { i += 1 }
        var elementEnd = i
        while elementEnd > elementStart && (input[elementEnd - 1] == 0x20 || input[elementEnd - 1] == 0x09) {
            elementEnd -= 1
        }
        if elementEnd > elementStart { body(elementStart, elementEnd) }
    }
}

/// Whether `input[start..<end]` equals the lowercase ASCII `literal`, ignoring the input's case.
@inline(__always)
func equalsLowercaseASCII(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ literal: StaticString) -> Bool {
    guard end - start == literal.utf8CodeUnitCount else { return false }
    let pointer = literal.utf8Start
    for i in 0..<(end - start) where asciiLower(input[start + i]) != pointer[i] {
        return false
    }
    return true
}

/// The request headers the parser interprets for framing, recognised from the name's bytes in any case.
enum FramingHeader {
    case contentLength, transferEncoding, connection, expect

    init?(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        func named(_ word: StaticString) -> Bool {
            guard end - start == word.utf8CodeUnitCount else { return false }
            for i in 0..<word.utf8CodeUnitCount where asciiLower(input[start + i]) != word.utf8Start[i] {
                return false
            }
            return true
        }
        switch end - start {
        case 14 where named("content-length"): self = .contentLength
        case 17 where named("transfer-encoding"): self = .transferEncoding
        case 10 where named("connection"): self = .connection
        case 6 where named("expect"): self = .expect
        default: return nil
        }
    }
}
