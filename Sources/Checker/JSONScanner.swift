import TextEscaping

/// A cursor over one history line's bytes; every error carries the line and column.
///
/// Strings are handed out as bytes (a slice of the line, or the decoded bytes when the string has escapes), so keys
/// and enum words are matched without building a `String` (`HistoryNames`); only ids and reasons become `String`s.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let line: Int
    var pos = 0

    init(bytes: UnsafeBufferPointer<UInt8>, line: Int) {
        self.bytes = bytes
        self.line = line
    }

    var atEnd: Bool { pos >= bytes.count }

    func error(_ message: String) -> HistoryError {
        .malformed(line: line, column: pos + 1, message: message)
    }

    mutating func skipSpace() {
        while pos < bytes.count {
            let b = bytes[pos]
            if b == 0x20 || b == 0x09 || b == 0x0D || b == 0x0A { pos += 1 } else { return }
        }
    }

    mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard pos < bytes.count, bytes[pos] == byte else {
            throw error("expected '\(Character(Unicode.Scalar(byte)))'")
        }
        pos += 1
    }

    /// Consumes `byte` if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipSpace()
        if pos < bytes.count, bytes[pos] == byte {
            pos += 1
            return true
        }
        return false
    }

    var peek: UInt8? { pos < bytes.count ? bytes[pos] : nil }

    /// Calls `body` for each key of an object (nil for a key the reader does not know), with the scanner positioned
    /// at the value.
    mutating func object(_ body: (inout JSONScanner, HistoryKey?) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if take(UInt8(ascii: "}")) { return }
        repeat {
            skipSpace()
            let key = try withString { HistoryKey(bytes: $0) }
            try expect(UInt8(ascii: ":"))
            skipSpace()
            try body(&self, key)
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
    }

    mutating func array(_ body: (inout JSONScanner) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        if take(UInt8(ascii: "]")) { return }
        repeat {
            skipSpace()
            try body(&self)
        } while take(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
    }

    // MARK: - Strings

    /// Reads a string and passes its decoded bytes to `body`: a slice of the line when it has no escapes.
    mutating func withString<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R {
        guard peek == UInt8(ascii: "\"") else { throw error("expected a string") }
        pos += 1
        let start = pos
        while pos < bytes.count {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                pos += 1
                return try body(UnsafeBufferPointer(rebasing: bytes[start..<pos - 1]))
            }
            if b == UInt8(ascii: "\\") {
                pos = start
                let decoded = try escapedString()
                return try decoded.withUnsafeBufferPointer { try body($0) }
            }
            pos += 1
        }
        throw error("unterminated string")
    }

    mutating func string() throws -> String {
        try withString { String(decoding: $0, as: UTF8.self) }
    }

    /// A string that should be one of `names`' words.
    mutating func name<Value>(_ names: ByteNames<Value>) throws -> Named<Value> {
        try withString { bytes in
            if let value = names.find(bytes) { return .known(value) }
            return .unknown(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The slow path, for strings with escapes; `pos` is just after the opening quote.
    private mutating func escapedString() throws -> [UInt8] {
        var out: [UInt8] = []
        while pos < bytes.count {
            let b = bytes[pos]
            pos += 1
            switch b {
            case UInt8(ascii: "\""):
                return out
            case UInt8(ascii: "\\"):
                guard pos < bytes.count else { throw error("unterminated string") }
                let e = bytes[pos]
                pos += 1
                switch e {
                case UInt8(ascii: "u"):
                    guard pos + 4 <= bytes.count,
                          let code = UInt32(String(decoding: UnsafeBufferPointer(rebasing: bytes[pos..<pos + 4]),
                                                   as: UTF8.self), radix: 16)
                    else { throw error("bad \\u escape") }
                    pos += 4
                    // Surrogate halves are replaced rather than paired: ids and reasons are ASCII in practice.
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: out.append(JSONText.unescaped(e) ?? e)
                }
            default:
                out.append(b)
            }
        }
        throw error("unterminated string")
    }

    /// A string, or nil for `null`.
    mutating func optionalString() throws -> String? {
        if null() { return nil }
        return try string()
    }

    // MARK: - Numbers and words

    mutating func integer() throws -> Int {
        skipSpace()
        var negative = false
        if peek == UInt8(ascii: "-") { negative = true; pos += 1 }
        let start = pos
        var value = 0
        while pos < bytes.count, bytes[pos] >= 0x30, bytes[pos] <= 0x39 {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(bytes[pos] - 0x30))
            if o1 || o2 { throw error("number too large") }
            value = a
            pos += 1
        }
        if pos == start { throw error("expected a number") }
        if let p = peek, p == UInt8(ascii: ".") || p == UInt8(ascii: "e") || p == UInt8(ascii: "E") {
            throw error("expected an integer")
        }
        return negative ? -value : value
    }

    mutating func bool() throws -> Bool {
        if match("true") { return true }
        if match("false") { return false }
        throw error("expected true or false")
    }

    /// True (and consumed) when `null` is next.
    mutating func null() -> Bool { match("null") }

    private mutating func match(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard pos + n <= bytes.count else { return false }
        let w = word.utf8Start
        for i in 0..<n where bytes[pos + i] != w[i] { return false }
        pos += n
        return true
    }

    /// Skips any JSON value.
    mutating func skipValue() throws {
        skipSpace()
        guard let b = peek else { throw error("expected a value") }
        switch b {
        case UInt8(ascii: "\""): try withString { _ in }
        case UInt8(ascii: "{"): try object { s, _ in try s.skipValue() }
        case UInt8(ascii: "["): try array { s in try s.skipValue() }
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try bool()
        case UInt8(ascii: "n"): if !null() { throw error("expected a value") }
        default:
            let start = pos
            while pos < bytes.count {
                let c = bytes[pos]
                if (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
                    || c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                    pos += 1
                } else { break }
            }
            if pos == start { throw error("expected a value") }
        }
    }
}
