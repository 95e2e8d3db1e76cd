import Foundation
import TextEscaping

/// One JSON line built in scratch memory and appended to a buffer with a single copy: the history's lines are
/// written on the event loop, and appending each piece (a key, a quote, an id) to the `[UInt8]` went through the
/// array's generic `append(contentsOf:)`, ~90 instructions a piece, most of a `sip` line's ~1,800 (docs/SIP.md).
///
/// The caller gives an upper bound of the line's length (`bound(_:)` for each text, `integerBound` for each
/// integer, the literal text's length); the writer does not check it, so it must hold. Texts are escaped exactly as
/// `JSONText.appendQuoted` escapes them, so the bytes are the same.
struct JSONLineWriter {
    let base: UnsafeMutablePointer<UInt8>
    var count = 0

    init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

    /// The most bytes `quoted(text)` writes: every byte escaped as `\u00XX`, and the quotes.
    static func bound(_ text: String) -> Int { text.utf8.count * 6 + 2 }
    /// The most bytes `integer` writes (`-` and UInt64.max's 20 digits).
    static let integerBound = 21

    /// A writer over scratch memory of at least the line's bound (`withUnsafeTemporaryAllocation`).
    ///
    /// Each writer of a line opens its scratch itself, `withUnsafeTemporaryAllocation { var w =
    /// JSONLineWriter($0); …; w.append(to: &out) }`: a helper taking the line's body as a closure and calling it
    /// inside its own scratch closure made the compiler retain each text the body captured before the call and
    /// release it after (`HistoryText.sip`'s three a line, 84 retains and 84 releases a hold call, issue 33); one
    /// closure that captures the texts directly costs none.
    init(_ scratch: UnsafeMutableBufferPointer<UInt8>) { self.base = scratch.baseAddress! }

    /// Appends the line written so far to `out` in one copy (no newline).
    func append(to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }

    /// Text of the format itself (keys, punctuation), written as it is.
    mutating func raw(_ text: StaticString) {
        let n = text.utf8CodeUnitCount
        (base + count).update(from: text.utf8Start, count: n)
        count += n
    }

    mutating func byte(_ b: UInt8) {
        base[count] = b
        count += 1
    }

    /// `text` quoted and escaped as `JSONText.escape` does (`"` `\` and LF, CR, tab by their short forms, other
    /// control bytes as `\u00xx`); bytes from 0x80 up are UTF-8 of non-ASCII scalars and copied as they are.
    /// Text needing no escape (ids, words: nearly all) is checked eight bytes a step (`JSONText.isPlain`) and copied
    /// at once: a byte loop was ~7 instructions a byte, most of a `sip` line's cost for its device, Call-ID and label.
    /// Read borrowed (`TextBytes.withUTF8`: no retain of the text's storage).
    @inline(__always)
    mutating func quoted(_ text: String) {
        TextBytes.withUTF8(text) { quoted($0) }
    }

    /// The bytes of a text quoted and escaped (`quoted`).
    mutating func quoted(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        if let source = bytes.baseAddress, JSONText.isPlain(source, n) {
            base[count] = UInt8(ascii: "\"")
            (base + count + 1).update(from: source, count: n)
            base[count + n + 1] = UInt8(ascii: "\"")
            count += n + 2
            return
        }
        byte(UInt8(ascii: "\""))
        for b in bytes {
            if b >= 0x20, b != UInt8(ascii: "\""), b != UInt8(ascii: "\\") {
                base[count] = b
                count += 1
            } else {
                escape(b)
            }
        }
        byte(UInt8(ascii: "\""))
    }

    mutating func escape(_ b: UInt8) {
        byte(UInt8(ascii: "\\"))
        switch b {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte(b)
        case 0x0A: byte(UInt8(ascii: "n"))
        case 0x0D: byte(UInt8(ascii: "r"))
        case 0x09: byte(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            raw("u00")
            byte(hex.utf8Start[Int(b >> 4)])
            byte(hex.utf8Start[Int(b & 0x0F)])
        }
    }

    /// The decimal digits of `value`, as `JSONText.appendInteger` writes them.
    mutating func integer(_ value: UInt64) {
        count += JSONText.writeDigits(value, to: base + count)
    }

    mutating func integer(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        integer(value.magnitude)
    }
}

// MARK: - CSV rows and fixed-point times

/// The same scratch writer serves actions.csv rows (`ActionRow.appendCSV`): each field went through the array's
/// `append` per piece and per fraction digit before, ~3,500 instructions a row (issue 33).
extension JSONLineWriter {
    /// The most bytes `csvField(text)` writes: every byte a doubled quote, and the quotes around.
    static func csvBound(_ text: String) -> Int { text.utf8.count * 2 + 2 }
    /// The most bytes `fixed` writes: UInt64.max's 20 digits, a point and the decimals (at most 9).
    static let fixedBound = 32

    /// `text` as `CSVText.appendField` writes it: as it is, or in double quotes with each quote doubled when it
    /// holds a comma, a quote or a line break.
    /// Read borrowed, as `quoted` reads its text.
    @inline(__always)
    mutating func csvField(_ text: String) {
        TextBytes.withUTF8(text) { csvField($0) }
    }

    /// The bytes of one CSV field (`csvField`).
    mutating func csvField(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        let n = bytes.count
        guard !CSVText.isPlainField(source, n) else {
            (base + count).update(from: source, count: n)
            count += n
            return
        }
        byte(UInt8(ascii: "\""))
        for i in 0..<n {
            if source[i] == UInt8(ascii: "\"") { byte(source[i]) }
            byte(source[i])
        }
        byte(UInt8(ascii: "\""))
    }

    /// `micros` ÷ 10^decimals with exactly `decimals` digits after the point, as `RunFileTime` writes times.
    mutating func fixed(_ micros: UInt64, decimals: Int) {
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        integer(micros / scale)
        byte(UInt8(ascii: "."))
        // Two digits a division, from the last (the fraction is below 10^decimals, so the first are zeros as due).
        var fraction = micros % scale
        var i = count + decimals
        while i - count >= 2 {
            let q = fraction / 100
            let pair = UInt8(truncatingIfNeeded: fraction &- q &* 100)
            base[i - 2] = pair / 10 &+ UInt8(ascii: "0")
            base[i - 1] = pair % 10 &+ UInt8(ascii: "0")
            fraction = q
            i -= 2
        }
        if i > count { base[i - 1] = UInt8(truncatingIfNeeded: fraction) &+ UInt8(ascii: "0") }
        count += decimals
    }
}
