/// One bencoded value: the encoding of rtpengine's ng control protocol (a cookie, a space, then one bencoded
/// dictionary per UDP datagram). Byte strings stay bytes, since SDP bodies and tags need not be UTF-8; dictionary
/// keys are text, as every key the ng protocol defines is.
public enum Bencode: Equatable, Sendable {
    case integer(Int)
    case bytes([UInt8])
    case list([Bencode])
    case dictionary([String: Bencode])

    /// A byte string holding `text` as UTF-8.
    public static func string(_ text: String) -> Bencode { .bytes(Array(text.utf8)) }

    /// The byte string as UTF-8 text (invalid sequences replaced); nil for any other kind.
    public var text: String? {
        guard case .bytes(let bytes) = self else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The integer; nil for any other kind. rtpengine sends numbers as integers, though some older fields come
    /// as decimal text: those are read too.
    public var int: Int? {
        switch self {
        case .integer(let value): return value
        case .bytes: return text.flatMap { Int($0) }
        default: return nil
        }
    }

    public var list: [Bencode]? {
        guard case .list(let items) = self else { return nil }
        return items
    }

    public var dictionary: [String: Bencode]? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries
    }

    /// The value under `key` when this is a dictionary.
    public subscript(key: String) -> Bencode? { dictionary?[key] }
}

extension Bencode: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral,
                   ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(arrayLiteral elements: Bencode...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, Bencode)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
