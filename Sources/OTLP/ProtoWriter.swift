/// Protocol Buffers wire format, written by hand for the few OTLP messages callstorm sends (no Swift protobuf
/// package can be fetched here, and the OTLP messages are few and stable).
///
/// Fields are appended in the order the caller writes them; the encoders write them in field-number order and
/// leave out proto3 defaults (0, empty), which is what the reference encoders do, so the bytes compare equal with
/// the PyPI SDK's for the same values. Nested messages are written into a scratch writer and then appended behind
/// their length: OTLP requests are small enough that the copy costs nothing worth a two-pass size computation.
public struct ProtoWriter: Sendable {
    public internal(set) var bytes: [UInt8] = []

    public init() {}

    /// The wire types this encoder uses (protobuf encoding guide: VARINT 0, I64 1, LEN 2, I32 5).
    enum WireType: UInt64 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    mutating func varint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    mutating func tag(_ field: Int, _ wire: WireType) {
        varint(UInt64(field) << 3 | wire.rawValue)
    }

    // MARK: - Fields (each left out when it holds the proto3 default)

    public mutating func uint64(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// int32/int64/enum: negative values take ten bytes, as the wire format says.
    public mutating func int64(_ field: Int, _ value: Int64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(UInt64(bitPattern: value))
    }

    /// sint32/sint64: zigzag, so small negative numbers stay small.
    public mutating func sint(_ field: Int, _ value: Int64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    public mutating func bool(_ field: Int, _ value: Bool) {
        guard value else { return }
        tag(field, .varint)
        bytes.append(1)
    }

    public mutating func fixed64(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .fixed64)
        appendLittleEndian(value, count: 8)
    }

    public mutating func sfixed64(_ field: Int, _ value: Int64) {
        fixed64(field, UInt64(bitPattern: value))
    }

    public mutating func fixed32(_ field: Int, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, .fixed32)
        appendLittleEndian(UInt64(value), count: 4)
    }

    /// A double, left out when it is +0.0 (proto3 keeps -0.0, whose bits are not zero).
    public mutating func double(_ field: Int, _ value: Double) {
        fixed64(field, value.bitPattern)
    }

    /// A double written even when 0: for fields declared `optional` (a histogram point's sum, min, max).
    public mutating func presentDouble(_ field: Int, _ value: Double) {
        tag(field, .fixed64)
        appendLittleEndian(value.bitPattern, count: 8)
    }

    public mutating func string(_ field: Int, _ value: String) {
        guard !value.isEmpty else { return }
        tag(field, .lengthDelimited)
        var copy = value
        copy.withUTF8 { utf8 in
            varint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    public mutating func data(_ field: Int, _ value: [UInt8]) {
        guard !value.isEmpty else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A packed repeated varint field (proto3 packs repeated scalars by default).
    public mutating func packedUInt64(_ field: Int, _ values: [UInt64]) {
        guard !values.isEmpty else { return }
        var inner = ProtoWriter()
        for v in values { inner.varint(v) }
        data(field, inner.bytes)
    }

    /// An embedded message; written even when empty (a present message is not a default).
    public mutating func message(_ field: Int, _ body: (inout ProtoWriter) -> Void) {
        var inner = ProtoWriter()
        body(&inner)
        tag(field, .lengthDelimited)
        varint(UInt64(inner.bytes.count))
        bytes.append(contentsOf: inner.bytes)
    }

    private mutating func appendLittleEndian(_ value: UInt64, count: Int) {
        for i in 0..<count {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(8 * i)))
        }
    }
}
