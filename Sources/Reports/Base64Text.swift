/// Base64 (RFC 4648's alphabet, `=` padding, no line breaks: what `Data.base64EncodedData()` writes) appended
/// to a byte buffer, for the `.hlog` lines: one copy per call instead of a `Data` in and a `Data` out.
enum Base64Text {
    private static let alphabet: [UInt8] =
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func append(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let length = (bytes.count + 2) / 3 * 4
        guard length > 0 else { return }
        alphabet.withUnsafeBufferPointer { table in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { text in
                var i = 0, n = 0
                while i + 3 <= bytes.count {
                    let word = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                    text[n] = table[Int(word >> 18)]
                    text[n + 1] = table[Int(word >> 12 & 63)]
                    text[n + 2] = table[Int(word >> 6 & 63)]
                    text[n + 3] = table[Int(word & 63)]
                    i += 3
                    n += 4
                }
                let rest = bytes.count - i
                if rest > 0 {
                    let second = rest == 2 ? UInt32(bytes[i + 1]) : 0
                    let word = UInt32(bytes[i]) << 16 | second << 8
                    text[n] = table[Int(word >> 18)]
                    text[n + 1] = table[Int(word >> 12 & 63)]
                    text[n + 2] = rest == 2 ? table[Int(word >> 6 & 63)] : UInt8(ascii: "=")
                    text[n + 3] = UInt8(ascii: "=")
                }
                out.append(contentsOf: UnsafeBufferPointer(text))
            }
        }
    }
}
