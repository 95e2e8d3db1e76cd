/// A small JSON reader for the hot paths: every response of the reference target and every push payload a device
/// reads, and every request body the reference target reads, go into a `JSONLite.Value` tree. Foundation's
/// JSONDecoder cost ~15 µs for one conversation on Linux and was the largest user-space share of a `callstorm run`
/// profile (Benchmarks/results); this does the same in a few µs. Strict RFC 8259 syntax; nesting is capped so a
/// hostile server cannot exhaust the stack. In TextEscaping, beside JSONText, so the reference target reads its
/// request bodies with it too (it cannot depend on the driver).
public enum JSONLite {
    /// Not `indirect`: objects and arrays already hold their children in heap storage, so boxing every value
    /// (strings and numbers included) would only add an allocation per value.
    public enum Value: Equatable, Sendable {
        case object(Fields)
        case array([Value])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null

        public subscript(key: String) -> Value? {
            if case .object(let fields) = self { return fields[key] }
            return nil
        }
    }

    /// An object's members in document order. A view or a push has a handful of keys, read by a few paths: a
    /// linear search over short (mostly inline) strings costs less than hashing every key into a dictionary.
    public struct Fields: Equatable, Sendable {
        public var members: [(key: String, value: Value)] = []

        /// The value of the last member named `key`, as a dictionary built in document order would keep.
        public subscript(key: String) -> Value? {
            var i = members.count
            while i > 0 {
                i -= 1
                if members[i].key == key { return members[i].value }
            }
            return nil
        }

        /// Each key once (its last value), sorted.
        public var sortedKeys: [String] { Set(members.map(\.key)).sorted() }

        /// Equal when they map the same keys to the same values (member order and repeated keys aside).
        public static func == (a: Fields, b: Fields) -> Bool {
            let keys = a.sortedKeys
            return keys == b.sortedKeys && keys.allSatisfy { a[$0] == b[$0] }
        }
    }

    /// The document's value, or nil when `bytes` is not one well-formed JSON value.
    public static func parse(_ bytes: [UInt8]) -> Value? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer)
            guard let value = reader.value(depth: 0) else { return nil }
            reader.skipSpace()
            return reader.index == buffer.count ? value : nil
        }
    }

    /// The grammar, shared by the tree (`parse`) and the scan of named fields (`JSONScan`), so the two accept and
    /// refuse exactly the same documents.
    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        static let maxDepth = 64

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) -> Value? {
            guard depth < Self.maxDepth else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        mutating func literal(_ text: StaticString, _ value: Value) -> Value? {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return nil }
            for i in 0..<count where bytes[index + i] != text.utf8Start[i] { return nil }
            index += count
            return value
        }

        private mutating func object(depth: Int) -> Value? {
            index += 1  // {
            var fields = Fields()
            fields.members.reserveCapacity(8)  // a view or a push has a handful of keys: no regrowth
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(fields)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let value = value(depth: depth + 1) else { return nil }
                fields.members.append((key, value))
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(fields)
                } else {
                    return nil
                }
            }
        }

        private mutating func array(depth: Int) -> Value? {
            index += 1  // [
            var items: [Value] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            while true {
                guard let item = value(depth: depth + 1) else { return nil }
                items.append(item)
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(items)
                } else {
                    return nil
                }
            }
        }

        /// A string starting at the opening quote; escapes decoded, surrogate pairs joined.
        mutating func string() -> String? {
            index += 1  // opening quote
            let start = index
            // Fast path: no escapes. Eight bytes at a time while none of them is a quote, a backslash or a control
            // byte (ids are 36-byte UUIDs), then byte by byte from the word that has one.
            skipPlainWords()
            while index < bytes.count {
                let b = bytes[index]
                if b == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                if b == UInt8(ascii: "\\") { break }
                if b < 0x20 { return nil }
                index += 1
            }
            var out = Array(bytes[start..<index])
            while index < bytes.count {
                let b = bytes[index]
                index += 1
                if b == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
                if b < 0x20 { return nil }
                guard b == UInt8(ascii: "\\") else {
                    out.append(b)
                    continue
                }
                guard let scalar = escapedScalar() else { return nil }
                Self.appendUTF8(scalar, to: &out)
            }
            return nil
        }

        /// The scalar an escape stands for, `index` just past its backslash: a one-letter escape's byte, or `\u`'s
        /// four hex digits with a high surrogate joined to the `\u` low one that must follow; nil when malformed.
        mutating func escapedScalar() -> UInt32? {
            guard index < bytes.count else { return nil }
            let e = bytes[index]
            index += 1
            guard e == UInt8(ascii: "u") else { return JSONText.unescaped(e).map(UInt32.init) }
            guard var scalar = hex4() else { return nil }
            if (0xD800..<0xDC00).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                      bytes[index + 1] == UInt8(ascii: "u") else { return nil }
                index += 2
                guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            return Unicode.Scalar(scalar) == nil ? nil : scalar
        }

        /// A valid scalar's UTF-8 bytes.
        static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
            switch scalar {
            case ..<0x80:
                out.append(UInt8(scalar))
            case ..<0x800:
                out.append(UInt8(0xC0 | scalar >> 6))
                out.append(UInt8(0x80 | scalar & 0x3F))
            case ..<0x10000:
                out.append(UInt8(0xE0 | scalar >> 12))
                out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                out.append(UInt8(0x80 | scalar & 0x3F))
            default:
                out.append(UInt8(0xF0 | scalar >> 18))
                out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
                out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
                out.append(UInt8(0x80 | scalar & 0x3F))
            }
        }

        /// Moves `index` over whole 8-byte words holding no quote, no backslash and no byte below 0x20 (each a byte of
        /// the word made zero and found by the usual has-zero-byte test; a false "found" only ends the words early).
        mutating func skipPlainWords() {
            guard let base = bytes.baseAddress else { return }
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                    | ((word &- ones &* 0x20) & ~word)
                if special & highs != 0 { return }
                index += 8
            }
        }

        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let b = bytes[index]
                index += 1
                let d: UInt32
                switch b {
                case 0x30...0x39: d = UInt32(b - 0x30)
                case 0x41...0x46: d = UInt32(b - 0x41 + 10)
                case 0x61...0x66: d = UInt32(b - 0x61 + 10)
                default: return nil
                }
                v = v << 4 | d
            }
            return v
        }

        mutating func number() -> Value? {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            func digits() -> Int {
                let from = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
                return index - from
            }
            let intStart = index
            let intDigits = digits()
            guard intDigits > 0 else { return nil }
            if bytes[intStart] == 0x30 && intDigits > 1 { return nil }  // no leading zeros
            // Integers (versions, epoch milliseconds, statuses) up to 15 digits are exact in a Double: no String
            // and no strtod for them.
            if intDigits <= 15, index == bytes.count || (bytes[index] != UInt8(ascii: ".") &&
                                                        bytes[index] != UInt8(ascii: "e") &&
                                                        bytes[index] != UInt8(ascii: "E")) {
                var v: Int64 = 0
                for i in intStart..<index { v = v * 10 + Int64(bytes[i] - 0x30) }
                return .number(intStart > start ? -Double(v) : Double(v))
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return nil }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits() > 0 else { return nil }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            return Double(text).map(Value.number)
        }
    }
}

// MARK: - Typed reads with JSONDecoder's strictness: absent is nil, present with the wrong type fails.

extension JSONLite.Value {
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// An integral number that fits in Int.
    public var intValue: Int? {
        if case .number(let d) = self, d.rounded() == d, abs(d) < 9.0e15 { return Int(d) }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONLite.Value]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// An optional field: `.absent` (missing or null, as JSONDecoder treats `Optional`), a value, or a type mismatch.
public enum JSONField<T> {
    case absent
    case value(T)
    case mismatch

    public init(_ raw: JSONLite.Value?, _ read: (JSONLite.Value) -> T?) {
        guard let raw, !raw.isNull else {
            self = .absent
            return
        }
        if let v = read(raw) { self = .value(v) } else { self = .mismatch }
    }

    public var isMismatch: Bool {
        if case .mismatch = self { return true }
        return false
    }

    public var value: T? {
        if case .value(let v) = self { return v }
        return nil
    }
}
