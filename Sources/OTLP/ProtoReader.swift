/// Reads the wire format back, field by field: for the collector's answers (ExportTraceServiceResponse and its
/// metrics twin), which callstorm parses and `make fuzz` feeds with arbitrary bytes. It never traps on bad input:
/// every read checks its bounds and a malformed message ends in `ProtoReader.Malformed`.
public struct ProtoReader {
    public struct Malformed: Error, Equatable, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "malformed protobuf at byte \(offset): \(reason)" }
    }

    /// One field's value as the wire carries it; a LEN field's bytes are left for the caller to read further.
    public enum Value: Equatable {
        case varint(UInt64)
        case fixed64(UInt64)
        case bytes(ArraySlice<UInt8>)
        case fixed32(UInt32)
    }

    private let bytes: ArraySlice<UInt8>
    private var position: Int

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    public init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// The next field number and its value, or nil at the end of the message.
    public mutating func next() throws(Malformed) -> (field: Int, value: Value)? {
        guard position < bytes.endIndex else { return nil }
        let key = try varint()
        let field = key >> 3
        guard field > 0, field <= 536_870_911 else { throw fail("field number \(field) out of range") }
        switch key & 7 {
        case 0: return (Int(field), .varint(try varint()))
        case 1: return (Int(field), .fixed64(try little(8)))
        case 2:
            let length = try varint()
            guard length <= UInt64(bytes.endIndex - position) else { throw fail("length \(length) past the end") }
            let start = position
            position += Int(length)
            return (Int(field), .bytes(bytes[start..<position]))
        case 5: return (Int(field), .fixed32(UInt32(try little(4))))
        default: throw fail("wire type \(key & 7) is not one OTLP uses")
        }
    }

    private mutating func varint() throws(Malformed) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.endIndex else { throw fail("varint runs past the end") }
            let byte = bytes[position]
            position += 1
            guard shift < 64 else { throw fail("varint longer than ten bytes") }
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    private mutating func little(_ count: Int) throws(Malformed) -> UInt64 {
        guard bytes.endIndex - position >= count else { throw fail("fixed field runs past the end") }
        var result: UInt64 = 0
        for i in 0..<count {
            result |= UInt64(bytes[position + i]) << UInt64(8 * i)
        }
        position += count
        return result
    }

    private func fail(_ reason: String) -> Malformed {
        Malformed(offset: position - bytes.startIndex, reason: reason)
    }
}
