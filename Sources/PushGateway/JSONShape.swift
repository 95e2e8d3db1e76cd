/// A strict, allocation-free JSON syntax check (RFC 8259) for push payloads: is the body one JSON object and
/// nothing else? Foundation's parser builds the whole tree (tens of microseconds per push), which the gateway
/// does not need; it only needs to refuse what APNs and FCM would refuse.
enum JSONShape {
    /// Whether `bytes` is exactly one JSON object, optionally surrounded by whitespace.
    static func isObject(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = Scanner(bytes: buffer)
            scanner.skipSpace()
            guard scanner.peek == UInt8(ascii: "{"), scanner.value(depth: 0) else { return false }
            scanner.skipSpace()
            return scanner.index == buffer.count
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        static let maxDepth = 64

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { index += 1 }
        }

        mutating func literal(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for i in 0..<count where bytes[index + i] != text.utf8Start[i] { return false }
            index += count
            return true
        }

        mutating func value(depth: Int) -> Bool {
            guard depth < Self.maxDepth, let b = peek else { return false }
            switch b {
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return number()
            }
        }

        mutating func object(depth: Int) -> Bool {
            index += 1
            skipSpace()
            if peek == UInt8(ascii: "}") { index += 1; return true }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\""), string() else { return false }
                skipSpace()
                guard peek == UInt8(ascii: ":") else { return false }
                index += 1
                skipSpace()
                guard value(depth: depth) else { return false }
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"): index += 1; return true
                default: return false
                }
            }
        }

        mutating func array(depth: Int) -> Bool {
            index += 1
            skipSpace()
            if peek == UInt8(ascii: "]") { index += 1; return true }
            while true {
                skipSpace()
                guard value(depth: depth) else { return false }
                skipSpace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return true
                default: return false
                }
            }
        }

        mutating func string() -> Bool {
            index += 1
            while true {
                skipPlain()
                guard let b = peek else { return false }
                index += 1
                switch b {
                case UInt8(ascii: "\""):
                    return true
                case UInt8(ascii: "\\"):
                    guard let e = peek else { return false }
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        continue
                    case UInt8(ascii: "u"):
                        for _ in 0..<4 {
                            guard let h = peek, APNsValidator.isHex(h) else { return false }
                            index += 1
                        }
                    default:
                        return false
                    }
                case 0..<0x20:
                    return false
                case 0x80...:
                    guard utf8Sequence(lead: b) else { return false }
                default:
                    continue
                }
            }
        }

        /// Moves past the bytes of a string that need no decision (printable ASCII other than the quote and the
        /// backslash), eight bytes a step, to the first byte that does. A word's quote or backslash is found by the
        /// has-zero-byte test on the word made zero there, a control byte by the same test against 0x20, a byte of
        /// 0x80 or above by its high bit; the lowest byte flagged is always a true one (a borrow only flags bytes
        /// above it), so the step lands on the first special byte. The word may run past the string's end into
        /// the rest of the document (its closing quote is special): a short key or value is one step. A byte loop
        /// here was ~8 instructions a byte, about two thirds of the check's cost per push.
        mutating func skipPlain() {
            guard let base = bytes.baseAddress else { return }
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            var i = index
            let end = bytes.count
            while i &+ 8 <= end {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                    | ((word &- ones &* 0x20) & ~word) | word) & highs
                if special != 0 {
                    index = i &+ special.trailingZeroBitCount >> 3
                    return
                }
                i &+= 8
            }
            while i < end {
                let b = base[i]
                if b < 0x20 || b >= 0x80 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { break }
                i &+= 1
            }
            index = i
        }

        /// Checks the continuation bytes after a non-ASCII lead byte (already consumed).
        mutating func utf8Sequence(lead: UInt8) -> Bool {
            let extra: Int
            switch lead {
            case 0xC2...0xDF: extra = 1
            case 0xE0...0xEF: extra = 2
            case 0xF0...0xF4: extra = 3
            default: return false
            }
            for _ in 0..<extra {
                guard let c = peek, c & 0xC0 == 0x80 else { return false }
                index += 1
            }
            return true
        }

        mutating func number() -> Bool {
            if peek == UInt8(ascii: "-") { index += 1 }
            guard let first = peek, first >= 0x30 && first <= 0x39 else { return false }
            index += 1
            if first != 0x30 { digits() }
            if peek == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return false }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard digits() > 0 else { return false }
            }
            return true
        }

        @discardableResult
        mutating func digits() -> Int {
            var count = 0
            while let b = peek, b >= 0x30 && b <= 0x39 { index += 1; count += 1 }
            return count
        }
    }
}
