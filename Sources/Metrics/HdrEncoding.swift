/// HdrHistogram's V2 binary encoding (the payload that interval logs compress and base64), so the `.hlog` files
/// callstorm writes are read by the Java, C, Go and Python HdrHistogram tools.
///
/// Layout, all big-endian: cookie 0x1c849303, payload length (int32), normalizing index offset (int32, 0),
/// significant digits (int32), lowest discernible value (int64), highest trackable value (int64),
/// integer-to-double ratio (float64, 1.0), then the counts from index 0 up to the index of the largest value as
/// ZigZag LEB128 varints, where a run of two or more empty slots is written once as its negated length.
public enum HdrEncoding {
    public static let v2EncodingCookie: UInt32 = 0x1c84_9303
    public static let v2CompressedCookie: UInt32 = 0x1c84_9304
    static let headerSize = 40

    public enum DecodeError: Error, Equatable, CustomStringConvertible {
        case truncated
        case badCookie(UInt32)
        case badConfiguration(String)
        case badCounts(String)

        public var description: String {
            switch self {
            case .truncated: return "HdrHistogram encoding is truncated"
            case .badCookie(let cookie): return "not a V2 HdrHistogram encoding (cookie 0x\(String(cookie, radix: 16)))"
            case .badConfiguration(let why): return "HdrHistogram encoding has a bad configuration: \(why)"
            case .badCounts(let why): return "HdrHistogram encoding has bad counts: \(why)"
            }
        }
    }

    static func encode(_ histogram: some HdrStatistics) -> [UInt8] {
        var payload: [UInt8] = []
        var nextIndex = 0
        histogram.forEachNonZero { index, count in
            let zeros = index - nextIndex
            if zeros == 1 {
                putZigZag(0, into: &payload)
            } else if zeros > 1 {
                putZigZag(-Int64(zeros), into: &payload)
            }
            putZigZag(count, into: &payload)
            nextIndex = index + 1
            return true
        }
        var out: [UInt8] = []
        out.reserveCapacity(headerSize + payload.count)
        putBigEndian(UInt64(v2EncodingCookie), bytes: 4, into: &out)
        putBigEndian(UInt64(payload.count), bytes: 4, into: &out)
        putBigEndian(0, bytes: 4, into: &out)
        putBigEndian(UInt64(histogram.layout.significantDigits), bytes: 4, into: &out)
        putBigEndian(UInt64(histogram.layout.lowestDiscernibleValue), bytes: 8, into: &out)
        putBigEndian(UInt64(histogram.layout.highestTrackableValue), bytes: 8, into: &out)
        putBigEndian((1.0 as Double).bitPattern, bytes: 8, into: &out)
        out.append(contentsOf: payload)
        return out
    }

    /// Decodes an uncompressed V2 encoding. The exact min and max are not in the format, so they come back as
    /// the edges of the lowest and highest non-empty slots.
    public static func decode(_ bytes: [UInt8]) throws(DecodeError) -> HdrHistogram {
        guard bytes.count >= headerSize else { throw .truncated }
        let cookie = UInt32(readBigEndian(bytes, at: 0, bytes: 4))
        guard cookie == v2EncodingCookie else { throw .badCookie(cookie) }
        let length = Int(readBigEndian(bytes, at: 4, bytes: 4))
        let digits = Int(readBigEndian(bytes, at: 12, bytes: 4))
        let lowest = Int64(bitPattern: readBigEndian(bytes, at: 16, bytes: 8))
        let highest = Int64(bitPattern: readBigEndian(bytes, at: 24, bytes: 8))
        guard bytes.count >= headerSize + length else { throw .truncated }
        if let problem = HdrLayout.validationProblem(lowest: lowest, highest: highest, significantDigits: digits) {
            throw .badConfiguration(problem)
        }
        var histogram = HdrHistogram(lowestDiscernibleValue: lowest, highestTrackableValue: highest,
                                     significantDigits: digits)
        let layout = histogram.layout
        var position = headerSize
        let end = headerSize + length
        var index = 0
        while position < end {
            let value = try readZigZag(bytes, &position, end: end)
            if value < 0 {
                index += Int(-value)
                continue
            }
            guard index < layout.countsLength else { throw .badCounts("slot \(index) is beyond the range") }
            if value > 0 {
                histogram.record(layout.lowestEquivalentValue(atIndex: index), count: value)
            }
            index += 1
        }
        return histogram
    }

    // MARK: - Primitives

    /// HdrHistogram's ZigZag LEB128: 7 bits a byte, low bits first, at most 9 bytes (the 9th holds 8 bits).
    static func putZigZag(_ value: Int64, into out: inout [UInt8]) {
        var v = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        for _ in 0..<8 {
            if v < 0x80 {
                out.append(UInt8(v))
                return
            }
            out.append(UInt8(v & 0x7f) | 0x80)
            v >>= 7
        }
        out.append(UInt8(truncatingIfNeeded: v))
    }

    static func readZigZag(_ bytes: [UInt8], _ position: inout Int, end: Int) throws(DecodeError) -> Int64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        for byteNumber in 0..<9 {
            guard position < end else { throw .truncated }
            let byte = bytes[position]
            position += 1
            if byteNumber == 8 {
                result |= UInt64(byte) << 56
                break
            }
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
        }
        return Int64(bitPattern: result >> 1) ^ -Int64(bitPattern: result & 1)
    }

    /// Appends the low `count` bytes of `value`, most significant first.
    public static func putBigEndian(_ value: UInt64, bytes count: Int, into out: inout [UInt8]) {
        for shift in stride(from: (count - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    /// Reads `count` bytes at `offset` as a big-endian unsigned number.
    public static func readBigEndian(_ bytes: [UInt8], at offset: Int, bytes count: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<count { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }
}

extension HdrHistogram {
    /// The V2 encoding of this histogram; see `HdrEncoding`.
    public func encodedV2() -> [UInt8] { HdrEncoding.encode(self) }
}

extension SparseHistogram {
    /// The V2 encoding of this histogram; see `HdrEncoding` (and `encodeSparse`, its bytes written in place).
    public func encodedV2() -> [UInt8] { HdrEncoding.encodeSparse(self) }
}
