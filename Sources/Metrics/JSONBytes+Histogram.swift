import TextEscaping

// MARK: - Sparse histograms into a checkpoint, one copy each

extension JSONBytes {
    /// `SparseHistogram.encode(to:)`'s keys, the bulk of a checkpoint (every metric's total, once a second).
    /// The whole object is written into scratch memory sized for its worst case and appended with one copy: the
    /// nine keys and five scalars appended one by one, and the two arrays in chunks, went through the array's
    /// capacity and uniqueness checks each time (~7.8 k instructions a histogram of ~110 slots; issue 33, round 3).
    mutating func histogram(_ h: SparseHistogram) {
        let bound = Self.fixedBound + Self.integerBound * (h.indices.count + h.counts.count)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bound) { scratch in
            var w = ScratchCursor(base: scratch.baseAddress!)
            w.text("{\"lowestDiscernibleValue\":"); w.int(h.layout.lowestDiscernibleValue)
            w.text(",\"highestTrackableValue\":"); w.int(h.layout.highestTrackableValue)
            w.text(",\"significantDigits\":"); w.int(Int64(h.layout.significantDigits))
            w.text(",\"indices\":")
            h.indices.withUnsafeBufferPointer { v in w.integers(count: v.count) { Int64(v[$0]) } }
            w.text(",\"counts\":"); h.counts.withUnsafeBufferPointer { v in w.integers(count: v.count) { v[$0] } }
            w.text(",\"totalCount\":"); w.int(h.totalCount)
            w.text(",\"overflowCount\":"); w.int(h.overflowCount)
            w.text(",\"min\":"); w.int(h.min)
            w.text(",\"max\":"); w.int(h.max)
            w.byte(UInt8(ascii: "}"))
            out.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress, count: w.count))
        }
    }

    /// Integers as a JSON array, as `JSONText.appendInteger` writes each (tests pin the two together).
    mutating func array(_ values: [Int32]) {
        values.withUnsafeBufferPointer { v in appendArray(count: v.count) { Int64(v[$0]) } }
    }

    mutating func array(_ values: [Int64]) {
        values.withUnsafeBufferPointer { v in appendArray(count: v.count) { v[$0] } }
    }

    private mutating func appendArray(count: Int, _ value: (Int) -> Int64) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 + Self.integerBound * count) { scratch in
            var w = ScratchCursor(base: scratch.baseAddress!)
            w.integers(count: count, value)
            out.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress, count: w.count))
        }
    }

    /// A sign, 19 digits and a comma.
    static let integerBound = 21

    /// The keys and braces (~145 bytes) and seven scalars.
    static let fixedBound = 256 + 7 * integerBound
}

/// Writes into scratch memory the caller sized (`JSONBytes.histogram`'s bound): no checks per byte.
struct ScratchCursor {
    let base: UnsafeMutablePointer<UInt8>
    var count = 0

    @inline(__always)
    mutating func byte(_ value: UInt8) {
        base[count] = value
        count += 1
    }

    @inline(__always)
    mutating func text(_ text: StaticString) {
        let n = text.utf8CodeUnitCount
        (base + count).update(from: text.utf8Start, count: n)
        count += n
    }

    /// `JSONText.appendInteger`'s text. Counts (most below ten) and slot indices (below 10,000 for the usual
    /// layouts) take the short branches; anything longer goes through `JSONText.writeDigits`.
    @inline(__always)
    mutating func int(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        let m = value.magnitude
        if m < 10 { return byte(UInt8(truncatingIfNeeded: m) &+ UInt8(ascii: "0")) }
        guard m < 10_000 else {
            count += JSONText.writeDigits(m, to: base + count)
            return
        }
        let digits = m < 100 ? 2 : (m < 1_000 ? 3 : 4)
        var rest = m
        var i = count + digits
        repeat {
            i -= 1
            base[i] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
            rest /= 10
        } while rest > 0
        count += digits
    }

    /// `[a,b,…]`.
    @inline(__always)
    mutating func integers(count n: Int, _ value: (Int) -> Int64) {
        byte(UInt8(ascii: "["))
        for i in 0..<n {
            if i > 0 { byte(UInt8(ascii: ",")) }
            int(value(i))
        }
        byte(UInt8(ascii: "]"))
    }
}
