/// Reads one bencoded value from bytes, strictly: integers without leading zeros or `-0`, string lengths that fit
/// the input, no bytes after the value, nesting at most `maxDepth` deep. Errors name the offset and the problem.
public struct BencodeDecoder: Sendable {
    /// How deep lists and dictionaries may nest (a datagram of `l`s must not exhaust the stack).
    public var maxDepth: Int
    /// Whether dictionary keys must come in ascending byte order, as bencode says. rtpengine writes its keys in
    /// the order it added them, so reading its answers needs this off; repeated keys are refused either way.
    public var requiresSortedKeys: Bool

    public init(maxDepth: Int = 64, requiresSortedKeys: Bool = false) {
        self.maxDepth = maxDepth
        self.requiresSortedKeys = requiresSortedKeys
    }

    /// The one value `bytes` hold, all of them.
    public func decode(_ bytes: [UInt8]) throws -> Bencode {
        try bytes.withUnsafeBufferPointer { try decode($0[...]) }
    }

    /// The one value in `bytes` (a slice: offsets in errors count from the slice's start index).
    public func decode(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) throws -> Bencode {
        var reader = Reader(bytes: bytes, index: bytes.startIndex, decoder: self)
        let value = try reader.value(depth: 0)
        guard reader.index == bytes.endIndex else { throw reader.error(.trailingBytes) }
        return value
    }
}

/// The cursor over the input; every method leaves `index` after what it read.
private struct Reader {
    let bytes: Slice<UnsafeBufferPointer<UInt8>>
    var index: Int
    let decoder: BencodeDecoder

    func error(_ problem: BencodeError.Problem) -> BencodeError {
        BencodeError(offset: index - bytes.startIndex, problem: problem)
    }

    func peek() throws -> UInt8 {
        guard index < bytes.endIndex else { throw error(.truncated) }
        return bytes[index]
    }

    mutating func value(depth: Int) throws -> Bencode {
        let byte = try peek()
        switch byte {
        case UInt8(ascii: "i"):
            index += 1
            return .integer(try integer())
        case UInt8(ascii: "l"):
            return .list(try list(depth: depth + 1))
        case UInt8(ascii: "d"):
            return .dictionary(try dictionary(depth: depth + 1))
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .bytes(try string())
        default:
            throw error(.unexpectedByte(byte))
        }
    }

    /// After the `i`: an optional minus, digits without a leading zero, then `e`.
    mutating func integer() throws -> Int {
        let start = index
        var negative = false
        if try peek() == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        let digitsStart = index
        var magnitude: UInt64 = 0
        while try peek() != UInt8(ascii: "e") {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw error(.badInteger) }
            let (times, overflowA) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { throw error(.tooLarge) }
            magnitude = sum
            index += 1
        }
        let digits = index - digitsStart
        let leadingZero = digits > 1 && bytes[digitsStart] == UInt8(ascii: "0")
        guard digits > 0, !leadingZero, !(negative && magnitude == 0) else {
            index = start
            throw error(.badInteger)
        }
        index += 1  // the `e`
        if negative {
            guard magnitude <= UInt64(Int.max) + 1 else { throw error(.tooLarge) }
            return magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude)
        }
        guard magnitude <= UInt64(Int.max) else { throw error(.tooLarge) }
        return Int(magnitude)
    }

    /// `<length>:<bytes>`.
    mutating func string() throws -> [UInt8] {
        let start = index
        var length = 0
        while try peek() != UInt8(ascii: ":") {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw error(.badLength) }
            let (times, overflowA) = length.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            guard !overflowA, !overflowB else { throw error(.tooLarge) }
            length = sum
            index += 1
        }
        if index - start > 1, bytes[start] == UInt8(ascii: "0") {
            index = start
            throw error(.badLength)
        }
        index += 1  // the `:`
        guard length <= bytes.endIndex - index else { throw error(.truncated) }
        let text = Array(bytes[index..<index + length])
        index += length
        return text
    }

    mutating func list(depth: Int) throws -> [Bencode] {
        guard depth <= decoder.maxDepth else { throw error(.tooDeep(decoder.maxDepth)) }
        index += 1  // the `l`
        var items: [Bencode] = []
        while try peek() != UInt8(ascii: "e") {
            items.append(try value(depth: depth))
        }
        index += 1
        return items
    }

    mutating func dictionary(depth: Int) throws -> [String: Bencode] {
        guard depth <= decoder.maxDepth else { throw error(.tooDeep(decoder.maxDepth)) }
        index += 1  // the `d`
        var entries: [String: Bencode] = [:]
        var previous: [UInt8]?
        while try peek() != UInt8(ascii: "e") {
            let keyOffset = index
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { throw error(.badKey) }
            let raw = try string()
            guard let key = String(validating: raw, as: UTF8.self) else {
                index = keyOffset
                throw error(.badKey)
            }
            if entries[key] != nil {
                index = keyOffset
                throw error(.duplicateKey(key))
            }
            if decoder.requiresSortedKeys, let previous, !previous.lexicographicallyPrecedes(raw) {
                index = keyOffset
                throw error(.unsortedKey(key))
            }
            previous = raw
            entries[key] = try value(depth: depth)
        }
        index += 1
        return entries
    }
}
