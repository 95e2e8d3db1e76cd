/// Writing bencode: integers as `i<n>e`, byte strings as `<length>:<bytes>`, lists as `l…e`, dictionaries as
/// `d…e` with their keys in the order of their raw bytes (bencode requires it, so one value has one encoding).
extension Bencode {
    /// The value's bytes.
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        append(to: &out)
        return out
    }

    /// Appends the value's bytes to `out`.
    public func append(to out: inout [UInt8]) {
        switch self {
        case .integer(let value):
            out.append(UInt8(ascii: "i"))
            out.append(contentsOf: String(value).utf8)
            out.append(UInt8(ascii: "e"))
        case .bytes(let bytes):
            Self.appendString(bytes, to: &out)
        case .list(let items):
            out.append(UInt8(ascii: "l"))
            for item in items { item.append(to: &out) }
            out.append(UInt8(ascii: "e"))
        case .dictionary(let entries):
            out.append(UInt8(ascii: "d"))
            for (key, value) in entries.map({ (Array($0.key.utf8), $0.value) })
                .sorted(by: { $0.0.lexicographicallyPrecedes($1.0) }) {
                Self.appendString(key, to: &out)
                value.append(to: &out)
            }
            out.append(UInt8(ascii: "e"))
        }
    }

    private static func appendString(_ bytes: [UInt8], to out: inout [UInt8]) {
        out.append(contentsOf: String(bytes.count).utf8)
        out.append(UInt8(ascii: ":"))
        out.append(contentsOf: bytes)
    }
}
