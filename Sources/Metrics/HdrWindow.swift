/// The slots of an `HdrHistogram` between its recorded extremes, copied flat: what a worker hands another thread
/// each second (the live snapshot) without sharing its counts array.
///
/// Sharing the dense histogram was free at the hand-over but not after: the worker's next record into it copied
/// the whole counts array (~23,500 slots, ~190,000 instructions), once per histogram per second; at 20 SIP calls a
/// second that was ~1.5 M instructions a call. A window is one bulk copy of the slots in use, and the reader makes
/// the sparse form, off the worker's queue.
public struct HdrWindow: Sendable {
    let layout: HdrLayout
    /// The slot index of `counts[0]`.
    let first: Int
    let counts: [Int64]
    let totalCount: Int64
    let overflowCount: Int64
    let min: Int64
    let max: Int64

    /// The same histogram reduced to its non-zero slots.
    public var sparse: SparseHistogram {
        var indices: [Int32] = []
        var values: [Int64] = []
        for (offset, count) in counts.enumerated() where count != 0 {
            indices.append(Int32(first + offset))
            values.append(count)
        }
        return SparseHistogram(layout: layout, indices: indices, counts: values, totalCount: totalCount,
                               overflowCount: overflowCount, min: min, max: max)
    }
}

extension HdrHistogram {
    /// The slots between the recorded extremes, copied (see `HdrWindow`).
    public var window: HdrWindow {
        let range = totalCount > 0 ? layout.countsIndex(min)..<(layout.countsIndex(max) + 1) : 0..<0
        return HdrWindow(layout: layout, first: range.lowerBound, counts: Array(counts[range]),
                         totalCount: totalCount, overflowCount: overflowCount, min: min, max: max)
    }
}
