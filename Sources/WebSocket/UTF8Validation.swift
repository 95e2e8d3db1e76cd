/// Strict UTF-8 validation as RFC 6455 §8.1 requires of text messages and close reasons: no overlong forms,
/// no surrogates (U+D800–U+DFFF), nothing above U+10FFFF, no truncated sequence at the end.
public enum UTF8Validation {
    public static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 { i += 1; continue }
            let need: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; high = 0x9F
            case 0xF0: need = 3; low = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; high = 0x8F
            default: return false
            }
            guard i + need < n else { return false }
            let b1 = bytes[i + 1]
            guard b1 >= low && b1 <= high else { return false }
            for k in stride(from: 2, through: need, by: 1) where bytes[i + k] & 0xC0 != 0x80 { return false }
            i += need + 1
        }
        return true
    }

    public static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0) }
    }
}
