/// JSON text appended straight to a byte buffer, for lines written on hot paths (the history's, a checkpoint's):
/// no String per line and none per integer. Strings go through `JSONText.escape`'s rules; `unescaped` is the same
/// table read the other way, for the readers.
extension JSONText {
    /// Appends `value` quoted, escaped as `escape` does; text needing no escape is copied as it is. Read borrowed
    /// (`TextBytes.withUTF8`): ids like `sip-0001` and words like `INVITE` cost no retain.
    public static func appendQuoted(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let plain = TextBytes.withUTF8(value) { bytes -> Bool in
            guard !bytes.contains(where: needsEscape) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if !plain { out.append(contentsOf: escape(value).utf8) }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends the decimal digits of `value` (with a `-` when negative).
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendInteger(value.magnitude, to: &out)
    }

    /// One digit appended on its own (most integers of a checkpoint's sparse histograms are counts below ten);
    /// longer ones are written into a 24-byte scratch (`writeDigits`) and copied once as typed bytes, which
    /// `Array.append(contentsOf:)` does with one memcpy (raw bytes went through its byte-by-byte path: ~100
    /// instructions per integer, most of the history's and checkpoint's integer cost).
    public static func appendInteger(_ value: UInt64, to out: inout [UInt8]) {
        if value < 10 { return out.append(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0")) }
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64.max's 20 digits
        withUnsafeMutableBytes(of: &scratch) { raw in
            let digits = raw.bindMemory(to: UInt8.self)
            let n = writeDigits(value, to: digits.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[..<n]))
        }
    }

    /// Writes `value`'s decimal digits at `base` (room for 20 bytes is the caller's) and returns how many: the
    /// one digit writer of the scratch writers that fill raw memory (the history's `JSONLineWriter`, the recorder's
    /// checkpoint chunks). The count comes from the value's bit length (`digitCount`), and the digits are written
    /// backwards two at a time (one division by 100 a pair): a history line's time is ~12 digits, and a division
    /// and a store per digit, after a division per digit to count them, was ~180 instructions a time (issue 33).
    @inlinable
    public static func writeDigits(_ value: UInt64, to base: UnsafeMutablePointer<UInt8>) -> Int {
        if value < 10 {
            base[0] = UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0")
            return 1
        }
        let digits = digitCount(value)
        var rest = value
        var i = digits
        // Each pair's two digits copied from a table of "00" to "99" (a load and a store where dividing the pair by
        // ten again took ~5 instructions more a pair; issue 33, s52).
        let pairs = digitPairs.utf8Start
        while rest >= 100 {
            let q = rest / 100
            let pair = Int(truncatingIfNeeded: rest &- q &* 100)
            i &-= 2
            UnsafeMutableRawPointer(base + i).storeBytes(
                of: UnsafeRawPointer(pairs + pair &* 2).loadUnaligned(as: UInt16.self), as: UInt16.self)
            rest = q
        }
        if rest >= 10 {
            let pair = UInt8(truncatingIfNeeded: rest)
            base[0] = pair / 10 &+ UInt8(ascii: "0")
            base[1] = pair % 10 &+ UInt8(ascii: "0")
        } else {
            base[0] = UInt8(truncatingIfNeeded: rest) &+ UInt8(ascii: "0")
        }
        return digits
    }

    /// "00" to "99", two bytes a pair, for `writeDigits` (a literal, so a constant address: no lazy global).
    @inlinable
    static var digitPairs: StaticString {
        """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
    }

    /// How many decimal digits `value` (at least 1) has: log10 from the bit length (`bits * 1233 >> 12` is
    /// `floor(bits * log10(2))`), one more when the value reaches the next power of ten.
    @inlinable
    static func digitCount(_ value: UInt64) -> Int {
        let bits = 64 &- value.leadingZeroBitCount
        let guess = (bits &* 1_233) >> 12
        return value >= powerOfTen(guess) ? guess &+ 1 : guess
    }

    /// 10^`exponent` for 0 through 19 (a switch the compiler makes a table of).
    @inlinable
    static func powerOfTen(_ exponent: Int) -> UInt64 {
        switch exponent {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1_000
        case 4: return 10_000
        case 5: return 100_000
        case 6: return 1_000_000
        case 7: return 10_000_000
        case 8: return 100_000_000
        case 9: return 1_000_000_000
        case 10: return 10_000_000_000
        case 11: return 100_000_000_000
        case 12: return 1_000_000_000_000
        case 13: return 10_000_000_000_000
        case 14: return 100_000_000_000_000
        case 15: return 1_000_000_000_000_000
        case 16: return 10_000_000_000_000_000
        case 17: return 100_000_000_000_000_000
        case 18: return 1_000_000_000_000_000_000
        default: return 10_000_000_000_000_000_000
        }
    }

    /// The byte a one-letter JSON escape stands for (`n` → LF, `"` → `"`, …: `b f n r t " \ /`); nil for any
    /// other letter (`u` takes four hex digits, which the reader decodes itself).
    public static func unescaped(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return letter
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        default: return nil
        }
    }

    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
    }
}
