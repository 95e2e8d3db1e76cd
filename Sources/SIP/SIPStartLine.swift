/// The start line of a SIP message, read without parsing the message.
public enum SIPStartLine {
    /// The method of a request (`INVITE`) or the status code of a response (`200`); `?` when the bytes start with
    /// neither (a keep-alive, garbage: the filter still decides on it).
    public static func label<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        let space = UInt8(ascii: " ")
        var first: [UInt8] = []
        var second: [UInt8] = []
        var field = 0
        for byte in bytes.prefix(64) {
            if byte == space {
                field += 1
                if field == 2 { break }
                continue
            }
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") { break }
            if field == 0 { first.append(byte) } else { second.append(byte) }
        }
        let head = String(decoding: first, as: UTF8.self)
        if head.hasPrefix("SIP/") {
            let code = String(decoding: second, as: UTF8.self)
            return code.count == 3 && code.allSatisfy(\.isNumber) ? code : "?"
        }
        guard field >= 1, !head.isEmpty, head.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
        else { return "?" }
        return head
    }

    /// The Call-ID header's value (`Call-ID:` or its compact form `i:`, any case), read off the header lines
    /// without parsing the message; nil when the head has none (a keep-alive, garbage). Looks at the first 4 KiB.
    public static func callID<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
        var line: [UInt8] = []
        for byte in bytes.prefix(4096) {
            guard byte == UInt8(ascii: "\n") else {
                if byte != UInt8(ascii: "\r") { line.append(byte) }
                continue
            }
            if line.isEmpty { return nil }  // the blank line: the headers are over
            if let value = callIDValue(line) { return value }
            line.removeAll(keepingCapacity: true)
        }
        return nil
    }

    private static func callIDValue(_ line: [UInt8]) -> String? {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let isSpace = { (b: UInt8) in b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") }
        let name = line[..<colon].drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        guard SIPHeaderName.callID.matches(String(decoding: name, as: UTF8.self)) else { return nil }
        let value = line[(colon + 1)...].drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        return value.isEmpty ? nil : String(decoding: value, as: UTF8.self)
    }
}
