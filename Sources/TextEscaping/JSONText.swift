/// JSON string text built by appending, without Foundation's serializer (≈49 µs an object on Linux): the one
/// JSON string escaper of callstorm, used on hot paths (the reference target's responses and pushes, the
/// gateway's FCM ingress, the driver's history lines).
public enum JSONText {
    /// `value` as a quoted JSON string.
    public static func quote(_ value: String) -> String {
        "\"" + escape(value) + "\""
    }

    /// `value` with every character JSON requires escaped, without the surrounding quotes: `"` and `\`,
    /// LF, CR and tab by their short forms, other control characters as `\u00XX`. Text needing none (nearly
    /// all of it: ids, tokens, names) is returned as is without copying.
    public static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: needsEscape) else {
            return value
        }
        var out = ""
        out.reserveCapacity(value.utf8.count + 8)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
