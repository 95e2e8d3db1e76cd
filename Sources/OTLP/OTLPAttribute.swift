/// One key-value attribute (OTLP `KeyValue` with an `AnyValue`): the kinds callstorm sends.
public struct OTLPAttribute: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case bool(Bool)
        case int(Int64)
        case double(Double)
    }

    public var key: String
    public var value: Value

    public init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }

    public init(_ key: String, _ value: String) {
        self.init(key, .string(value))
    }

    public init(_ key: String, _ value: Int64) {
        self.init(key, .int(value))
    }

    /// common.proto: KeyValue { key = 1; value = 2 }, AnyValue { string 1, bool 2, int 3, double 4 }. A oneof
    /// member is written even at its default (its presence is the information).
    func encode(into w: inout ProtoWriter) {
        w.string(1, key)
        w.message(2) { v in
            switch value {
            case .string(let s):
                v.tag(1, .lengthDelimited)
                v.varint(UInt64(s.utf8.count))
                v.appendRaw(Array(s.utf8))
            case .bool(let b):
                v.tag(2, .varint)
                v.varint(b ? 1 : 0)
            case .int(let i):
                v.tag(3, .varint)
                v.varint(UInt64(bitPattern: i))
            case .double(let d):
                v.tag(4, .fixed64)
                v.appendRaw((0..<8).map { UInt8(truncatingIfNeeded: d.bitPattern >> UInt64(8 * $0)) })
            }
        }
    }
}

extension ProtoWriter {
    mutating func appendRaw(_ raw: [UInt8]) {
        bytes.append(contentsOf: raw)
    }

    /// Repeated `KeyValue` messages under `field`.
    mutating func attributes(_ field: Int, _ attributes: [OTLPAttribute]) {
        for attribute in attributes {
            message(field) { attribute.encode(into: &$0) }
        }
    }
}
