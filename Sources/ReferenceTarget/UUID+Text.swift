import Foundation

extension UUID {
    /// `uuidString.lowercased()` written from the bytes: Foundation's `uuidString` and the lower-casing cost
    /// ~27,000 instructions a conversation on Linux, this a few hundred (issue 33).
    var lowercaseText: String {
        let digits: StaticString = "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { out in
                var o = 0
                for (i, byte) in raw.enumerated() {
                    if i == 4 || i == 6 || i == 8 || i == 10 {
                        out[o] = UInt8(ascii: "-")
                        o += 1
                    }
                    out[o] = digits.utf8Start[Int(byte >> 4)]
                    out[o + 1] = digits.utf8Start[Int(byte & 0x0F)]
                    o += 2
                }
                return o
            }
        }
    }
}
