/// Byte-level scanning of header values over their UTF-8 storage. Every received message has its top Via branch,
/// CSeq and tags read, several times; on `Substring.UTF8View` each byte step costs tens of instructions (index
/// checks), which made one branch lookup ~15,000 instructions (docs/SIP.md, "What a call costs"). Offsets here
/// are byte offsets; every cut falls on an ASCII byte, so the pieces are whole scalars.
enum ValueBytes {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// Runs `body` over `value`'s UTF-8 bytes (native strings without a copy). Borrowed through the UTF-8 view:
    /// `withUTF8` is mutating, and the `var` copy it needs retained the string and released it on every call
    /// (header matching, `readsBack`, the writers' strings; issue 33, round three). Only a string without
    /// contiguous UTF-8 (none on Linux) takes that copy.
    @inline(__always)
    static func with<R>(_ value: String, _ body: (Bytes) -> R) -> R {
        if let r = value.utf8.withContiguousStorageIfAvailable(body) { return r }
        var value = value
        return value.withUTF8(body)
    }

    /// The first comma in `lo..<hi` outside quotes and angle brackets (§7.3.1), or `hi`. Most values have no
    /// comma at all, which eight bytes a step tells first (`findByte`): the byte-by-byte walk below, which
    /// tracks quotes and brackets, cost ~330 instructions a value, ~40 values a call (issue 33).
    static func firstComma(_ b: Bytes, _ lo: Int, _ hi: Int) -> Int {
        if findByte(0x2C, b, lo, hi) == hi { return hi }
        var quoted = false, angle = false
        var i = lo
        while i < hi {
            switch b[i] {
            case 0x22: quoted.toggle()
            case 0x3C where !quoted: angle = true
            case 0x3E where !quoted: angle = false
            case 0x2C where !quoted && !angle: return i
            default: break
            }
            i += 1
        }
        return hi
    }

    /// `lo..<hi` without leading and trailing spaces and tabs.
    static func trim(_ b: Bytes, _ lo: Int, _ hi: Int) -> (Int, Int) {
        var lo = lo, hi = hi
        while lo < hi, b[lo] == 32 || b[lo] == 9 { lo += 1 }
        while hi > lo, b[hi - 1] == 32 || b[hi - 1] == 9 { hi -= 1 }
        return (lo, hi)
    }

    /// The first `byte` in `lo..<hi`, or `hi`.
    static func find(_ byte: UInt8, _ b: Bytes, _ lo: Int, _ hi: Int) -> Int {
        var i = lo
        while i < hi, b[i] != byte { i += 1 }
        return i
    }

    /// The first CR (13) in `lo..<hi`, `hi` when none, since the parser looks for every line's end this way.
    static func findCR(_ b: Bytes, _ lo: Int, _ hi: Int) -> Int { findByte(13, b, lo, hi) }

    /// The first `byte` in `lo..<hi`, `hi` when none: eight bytes a step (a word with a zero byte where `byte`
    /// was, found by the carry trick), then byte by byte within the word that has it.
    static func findByte(_ byte: UInt8, _ b: Bytes, _ lo: Int, _ hi: Int) -> Int {
        var i = lo
        if let base = b.baseAddress {
            let raw = UnsafeRawPointer(base)
            let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
            while i + 8 <= hi {
                let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ pattern
                if (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0 { break }
                i += 8
            }
        }
        while i < hi, b[i] != byte { i += 1 }
        return i
    }

    /// Whether every byte of `b` is ASCII, eight bytes a step (`allSatisfy` went byte by byte through the
    /// closure, ~850 instructions an SDP body).
    static func isASCII(_ b: Bytes) -> Bool {
        var i = 0
        var high: UInt64 = 0
        if let base = b.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= b.count {
                high |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                i += 8
            }
        }
        while i < b.count {
            high |= UInt64(b[i])
            i += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    /// `number` in decimal, appended (what `String(number).utf8` gives, without the `String`). The digits are
    /// written from the right into a buffer on the stack and appended in one copy: appended one by one and the
    /// slice reversed, a status code or Content-Length cost ~450 instructions.
    static func appendDecimal(_ number: some BinaryInteger, to out: inout [UInt8]) {
        var n = number.magnitude
        if number < 0 { out.append(0x2D) }
        if n == 0 { return out.append(0x30) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { digits in  // 40: any 128-bit magnitude
            var i = digits.count
            while n > 0 {
                i -= 1
                digits[i] = UInt8(truncatingIfNeeded: n % 10) + 0x30
                n /= 10
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i...]))
        }
    }

    static func string(_ b: Bytes, _ lo: Int, _ hi: Int) -> String {
        String(decoding: Bytes(rebasing: b[lo..<hi]), as: UTF8.self)
    }

    /// ASCII case-insensitive equality of `lo..<hi` with `name` (a token), as `asciiCaseEqual` compares.
    static func equals(_ b: Bytes, _ lo: Int, _ hi: Int, _ name: Bytes) -> Bool {
        guard hi - lo == name.count else { return false }
        for k in 0..<name.count {
            let x = b[lo + k], y = name[k]
            if x != y, !((x | 0x20) == (y | 0x20) && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A) { return false }
        }
        return true
    }

    /// `SIPParameters.lookup(name, in:)` over `lo..<hi`: the first parameter named `name`; nil for a flag or
    /// when absent.
    static func lookup(_ name: Bytes, _ b: Bytes, _ lo: Int, _ hi: Int) -> String? {
        lookupRange(name, b, lo, hi).map { string(b, $0.0, $0.1) }
    }

    /// Where `lookup`'s value lies in `b`, nil when it would return nil.
    static func lookupRange(_ name: Bytes, _ b: Bytes, _ lo: Int, _ hi: Int) -> (Int, Int)? {
        var start = lo
        while start <= hi {
            let end = findByte(0x3B, b, start, hi)
            let (plo, phi) = trim(b, start, end)
            if plo < phi {
                let eq = find(0x3D, b, plo, phi)
                let (nlo, nhi) = eq == phi ? (plo, phi) : trim(b, plo, eq)
                if equals(b, nlo, nhi, name) {
                    guard eq < phi else { return nil }
                    return trim(b, eq + 1, phi)
                }
            }
            guard end < hi else { return nil }
            start = end + 1
        }
        return nil
    }

    static func lookup(_ name: StaticString, _ b: Bytes, _ lo: Int, _ hi: Int) -> String? {
        lookup(Bytes(start: name.utf8Start, count: name.utf8CodeUnitCount), b, lo, hi)
    }
}

extension Array where Element == UInt8 {
    /// `text`'s UTF-8 bytes appended in one copy. `append(contentsOf: text.utf8)` goes through the generic
    /// sequence path (a count, a reserve, `_copyContents`), ~170 instructions for a few bytes, and the send path
    /// appends ~100 strings a call: start lines, tags, branches, URIs, SDP fields (issue 33).
    mutating func appendUTF8(_ text: String) {
        ValueBytes.with(text) { append(contentsOf: $0) }
    }

    /// A literal's bytes appended in one copy (no `String` made of it).
    mutating func appendASCII(_ text: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
