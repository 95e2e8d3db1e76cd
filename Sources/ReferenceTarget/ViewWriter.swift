import TextEscaping

/// Writes JSON into memory sized beforehand (a String's own storage, `ServerConversation.json`): one allocation
/// and no capacity check, uniqueness check or copy per piece.
///
/// Why: the view was appended to a `[UInt8]` piece by piece and then copied into a String; each static piece went
/// through `Array.append(contentsOf:)` (~100 instructions) and each quoted text through `JSONText.appendQuoted`'s,
/// ~7,700 instructions a view, four views a call in the capacity flow (issue 33). Escaping keeps
/// `JSONText.escape`'s one rule: text that needs it (rare) is escaped by that function and copied.
///
/// The caller's bound must hold every byte written: `bound(_:)` for each text, `integerBound` for each integer,
/// and the fixed pieces' lengths.
struct ViewWriter {
    let base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0

    init(_ base: UnsafeMutablePointer<UInt8>) { self.base = base }

    /// The most bytes `quoted(text)` writes: every byte escaped as `\u00XX`, and the quotes.
    static func bound(_ text: String) -> Int { text.utf8.count &* 6 &+ 2 }
    /// The most bytes `integer` writes (`-` and 20 digits).
    static let integerBound = 21

    /// Text of the format itself (keys, punctuation), written as it is.
    @inline(__always)
    mutating func raw(_ text: StaticString) {
        let n = text.utf8CodeUnitCount
        (base + count).update(from: text.utf8Start, count: n)
        count &+= n
    }

    @inline(__always)
    mutating func byte(_ b: UInt8) {
        base[count] = b
        count &+= 1
    }

    /// `text` quoted, escaped as `JSONText.escape` does; read borrowed (`TextBytes.withUTF8`: no retain).
    mutating func quoted(_ text: String) {
        if text.utf8.isEmpty { return raw("\"\"") }
        let plain = TextBytes.withUTF8(text) { bytes -> Bool in
            let n = bytes.count
            guard let source = bytes.baseAddress, JSONText.isPlain(source, n) else { return false }
            base[count] = UInt8(ascii: "\"")
            (base + count + 1).update(from: source, count: n)
            base[count &+ n &+ 1] = UInt8(ascii: "\"")
            count &+= n &+ 2
            return true
        }
        if plain { return }
        byte(UInt8(ascii: "\""))
        verbatim(JSONText.escape(text))
        byte(UInt8(ascii: "\""))
    }

    /// Text already in JSON form (a view written before), copied as it is.
    mutating func verbatim(_ text: String) {
        TextBytes.withUTF8(text) { bytes in
            guard let source = bytes.baseAddress else { return }
            (base + count).update(from: source, count: bytes.count)
            count &+= bytes.count
        }
    }

    /// Bytes already in JSON form (a view written before), copied as they are.
    mutating func verbatim(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { bytes in
            guard let source = bytes.baseAddress else { return }
            (base + count).update(from: source, count: bytes.count)
            count &+= bytes.count
        }
    }

    mutating func integer(_ value: Int) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        count &+= JSONText.writeDigits(UInt64(value.magnitude), to: base + count)
    }
}
