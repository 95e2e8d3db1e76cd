extension HdrEncoding {
    /// `encode`'s bytes for a sparse histogram, written in place into one array sized for the worst case (a
    /// varint of at most 9 bytes for each slot's count and one for the gap before it): every interval of a
    /// report's `.hlog` files is one, and the byte-by-byte appends to a payload array copied behind the header
    /// were ~4 k instructions an interval (issue 33, round 3). `HdrEncodingTests` pins the two together.
    static func encodeSparse(_ histogram: SparseHistogram) -> [UInt8] {
        let bound = headerSize + 18 * histogram.indices.count
        return [UInt8](unsafeUninitializedCapacity: bound) { out, written in
            let base = out.baseAddress!
            var n = headerSize
            var nextIndex = 0
            histogram.indices.withUnsafeBufferPointer { indices in
                histogram.counts.withUnsafeBufferPointer { counts in
                    for position in 0..<indices.count {
                        let index = Int(indices[position])
                        let zeros = index - nextIndex
                        if zeros == 1 {
                            n += writeZigZag(0, to: base + n)
                        } else if zeros > 1 {
                            n += writeZigZag(-Int64(zeros), to: base + n)
                        }
                        n += writeZigZag(counts[position], to: base + n)
                        nextIndex = index + 1
                    }
                }
            }
            var at = 0
            func put(_ value: UInt64, _ bytes: Int) {
                for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
                    base[at] = UInt8(truncatingIfNeeded: value >> UInt64(shift))
                    at += 1
                }
            }
            put(UInt64(v2EncodingCookie), 4)
            put(UInt64(n - headerSize), 4)
            put(0, 4)
            put(UInt64(histogram.layout.significantDigits), 4)
            put(UInt64(histogram.layout.lowestDiscernibleValue), 8)
            put(UInt64(histogram.layout.highestTrackableValue), 8)
            put((1.0 as Double).bitPattern, 8)
            written = n
        }
    }

    /// `putZigZag`'s bytes at `base`; returns how many (at most 9).
    @inline(__always)
    static func writeZigZag(_ value: Int64, to base: UnsafeMutablePointer<UInt8>) -> Int {
        var v = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        for i in 0..<8 {
            if v < 0x80 {
                base[i] = UInt8(v)
                return i + 1
            }
            base[i] = UInt8(v & 0x7f) | 0x80
            v >>= 7
        }
        base[8] = UInt8(truncatingIfNeeded: v)
        return 9
    }
}
