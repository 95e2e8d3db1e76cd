/// JSON text appended straight to a byte buffer, for lines written on hot paths (the history's, a checkpoint's):
/// no String per line and none per integer. Strings go through `JSONText.escape`'s rules; `unescaped` is the same
/// table read the other way, for the readers.
extension JSONText {
    /// Appends `value` quoted, escaped as `escape` does; text needing no escape is copied as it is.
    /// Read borrowed through `utf8.withContiguousStorageIfAvailable`, which on Swift 6 gives a small string's bytes
    /// too (ids like `sip-0001` and words like `INVITE` are small): `var value = value; value.withUTF8` was a
    /// retain and a release of the text's storage per call (issue 33).
    public static func appendQuoted(_ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        let plain = value.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.contains(where: needsEscape) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        switch plain {
        case true?: break
        case false?: out.append(contentsOf: escape(value).utf8)
        case nil: appendQuotedCopy(value, to: &out)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `appendQuoted`'s body for a string without contiguous UTF-8 (a bridged one: none on Linux).
    @inline(never)
    static func appendQuotedCopy(_ value: String, to out: inout [UInt8]) {
        var value = value
        let plain = value.withUTF8 { bytes in
            guard !bytes.contains(where: needsEscape) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if !plain { out.append(contentsOf: escape(value).utf8) }
    }

    /// Appends the decimal digits of `value` (with a `-` when negative).
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendInteger(value.magnitude, to: &out)
    }

    /// One digit appended on its own (most integers of a checkpoint's sparse histograms are counts below ten);
    /// longer ones are written backwards into a 24-byte scratch and copied once as typed bytes, which
    /// `Array.append(contentsOf:)` does with one memcpy (raw bytes went through its byte-by-byte path: ~100
    /// instructions per integer, most of the history's and checkpoint's integer cost).
    public static func appendInteger(_ value: UInt64, to out: inout [UInt8]) {
        if value < 10 { return out.append(UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0")) }
        var rest = value
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt64.max's 20 digits
        withUnsafeMutableBytes(of: &scratch) { raw in
            let digits = raw.bindMemory(to: UInt8.self)
            var i = digits.count
            repeat {
                i -= 1
                digits[i] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[i...]))
        }
    }

    /// Writes `value`'s decimal digits at `base` (room for 20 bytes is the caller's) and returns how many: the
    /// one digit writer of the scratch writers that fill raw memory (the history's `JSONLineWriter`, the recorder's
    /// checkpoint chunks), which count the digits first and write them backwards in place.
    @inlinable
    public static func writeDigits(_ value: UInt64, to base: UnsafeMutablePointer<UInt8>) -> Int {
        if value < 10 {
            base[0] = UInt8(truncatingIfNeeded: value) &+ UInt8(ascii: "0")
            return 1
        }
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        rest = value
        var i = digits
        repeat {
            i -= 1
            base[i] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
            rest /= 10
        } while rest > 0
        return digits
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
