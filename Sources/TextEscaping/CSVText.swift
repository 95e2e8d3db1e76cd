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

    /// Appends `text` as one field to `out`.
    public static func appendField(_ text: String, to out: inout [UInt8]) {
        guard needsQuotes(text) else { return out.append(contentsOf: text.utf8) }
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") { out.append(byte) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func needsQuotes(_ text: String) -> Bool {
        text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
    }
}
