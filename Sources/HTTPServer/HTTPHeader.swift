/// One header field, as a protocol-agnostic name/value pair.
///
/// Request headers arrive with lowercased names (HTTP/2 requires lowercase names on the wire, and HTTP/1.1
/// names are case-insensitive, so lowercasing at the edge lets handlers compare with `==`). Response header
/// names are written as the handler spelled them.
public struct HTTPHeader: Sendable, Equatable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    public init(_ name: String, _ value: String) {
        self.init(name: name, value: value)
    }
}

// MARK: - Case-insensitive lookup shared by requests and responses

extension Array where Element == HTTPHeader {
    /// The first value whose name equals `name` ignoring ASCII case, or nil.
    func firstValue(named name: String) -> String? {
        for header in self where asciiCaseInsensitiveEquals(header.name, name) {
            return header.value
        }
        return nil
    }

    /// Every value whose name equals `name` ignoring ASCII case, in the order received.
    func allValues(named name: String) -> [String] {
        var values: [String] = []
        for header in self where asciiCaseInsensitiveEquals(header.name, name) {
            values.append(header.value)
        }
        return values
    }
}

/// Compares two strings byte by byte, folding only ASCII letters, which is what header names need and far
/// cheaper than `lowercased()`, which allocates.
@inline(__always)
func asciiCaseInsensitiveEquals(_ a: String, _ b: String) -> Bool {
    // Lengths first (O(1) for native strings): most names a lookup passes differ in length.
    guard a.utf8.count == b.utf8.count else { return false }
    var a = a
    var b = b
    return a.withUTF8 { pa in
        b.withUTF8 { pb in
            guard pa.count == pb.count else { return false }
            for i in 0..<pa.count where asciiLower(pa[i]) != asciiLower(pb[i]) {
                return false
            }
            return true
        }
    }
}

@inline(__always)
func asciiLower(_ byte: UInt8) -> UInt8 {
    (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
}
