import Foundation

/// base64url without padding (RFC 7515 §2), the encoding of every JWT part.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Nil when `text` holds a character outside the base64url alphabet or has an impossible length.
    public static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var s = String(text)
        if s.contains(where: { $0 == "+" || $0 == "/" || $0 == "=" }) { return nil }
        s = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch s.utf8.count % 4 {
        case 0: break
        case 2: s += "=="
        case 3: s += "="
        default: return nil
        }
        guard let data = Data(base64Encoded: s) else { return nil }
        return [UInt8](data)
    }
}
