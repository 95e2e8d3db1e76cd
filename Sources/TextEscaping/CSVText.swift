/// CSV fields with RFC 4180 quoting, the one CSV escaper of callstorm (the journal's actions.csv and pushes.csv,
/// the reports' CSV tables): a field holding a comma, a double quote, CR or LF is quoted and its quotes doubled;
/// any other field is written as it is.
public enum CSVText {
    /// `text` as one field.
    public static func field(_ text: String) -> String {
        guard needsQuotes(text) else { return text }
        var out: [UInt8] = []
        appendField(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` as one field to `out`, read borrowed (`TextBytes.withUTF8`: no retain of its storage).
    public static func appendField(_ text: String, to out: inout [UInt8]) {
        TextBytes.withUTF8(text) { appendField($0, to: &out) }
    }

    /// One field's bytes, quoted when they need it.
    static func appendField(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard bytes.contains(where: special) else { return out.append(contentsOf: bytes) }
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            if byte == UInt8(ascii: "\"") { out.append(byte) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether the `n` bytes at `source` make a field that needs no quotes (no comma, `"`, LF or CR): eight bytes a
    /// step (`ByteWords`), for writers that fill raw memory (actions.csv rows, `JSONLineWriter.csvField`, where a
    /// byte loop with four comparisons a byte was ~3,400 instructions a SIP call; issue 33, s52).
    @inlinable
    public static func isPlainField(_ source: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        ByteWords.every(source, n, plainWord)
    }

    @inlinable @inline(__always)
    static func plainWord(_ w: UInt64) -> Bool {
        (ByteWords.equal(w, 0x2C) | ByteWords.equal(w, 0x22) | ByteWords.equal(w, 0x0A) | ByteWords.equal(w, 0x0D)) == 0
    }

    private static func special(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 10 || byte == 13
    }

    private static func needsQuotes(_ text: String) -> Bool {
        text.utf8.contains(where: special)
    }
}
