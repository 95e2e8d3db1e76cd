/// One metric's second in progress (`Recorder.MetricState.open`).
///
/// Most seconds hold a handful of samples per metric: at the SIP instructions bench's 20 calls/s a dense
/// histogram made each of them pay for its whole span twice a second, a scan to seal it and a reset, ~0.2 M
/// instructions per call. So the first `spillAt` samples are kept as values and sorted into sparse slots at the
/// seal; only a busier second spills them into the dense form and goes on there. Both give the same slots, counts
/// and extremes (`OpenIntervalTests`).
struct OpenInterval: Sendable {
    /// Samples kept as values before a second goes dense: sorting 64 values costs less than one scan of a
    /// latency histogram's span.
    static let spillAt = 64

    private var values: [Int64] = []
    /// The recorder's empty template (its counts shared, copy-on-write) until a second spills.
    private var dense: HdrHistogram
    private var spilled = false
    /// `dense` has counts of its own (made at the first spill); before, it shares the template's.
    private var ownsDense = false

    init(template: HdrHistogram) {
        dense = template
    }

    var isEmpty: Bool { spilled ? dense.isEmpty : values.isEmpty }
    /// The samples recorded this second.
    var count: Int64 { spilled ? dense.totalCount : Int64(values.count) }

    @inline(__always)
    mutating func record(_ value: Int64) {
        if !spilled {
            if values.count < Self.spillAt {
                values.append(value)
                return
            }
            spill()
        }
        dense.record(value)
    }

    private mutating func spill() {
        // Empty here whenever it spills (the template, or emptied by `takeSparse`). The first spill makes zeroed
        // counts of its own rather than copying the template's on write: a copy of its 188 KB read the whole
        // template, ~0.2 M instructions a spill, 27 k a call of the SIP instructions bench, where valgrind's
        // slowness bunches a few seconds' samples past `spillAt` (issue 33, s55).
        if !ownsDense {
            dense = HdrHistogram(layout: dense.layout)
            ownsDense = true
        }
        for value in values { dense.record(value) }
        values.removeAll(keepingCapacity: true)
        spilled = true
    }

    /// The samples so far as sparse slots, without emptying.
    var sparse: SparseHistogram {
        spilled ? dense.sparse : SparseHistogram(layout: dense.layout, samples: values)
    }

    /// The samples so far, for another thread to turn into sparse slots (`RecorderFreeze`): a few values are
    /// handed over as they are (the array shared, copy-on-write: the owner's next sample copies at most
    /// `spillAt` of them), a spilled second as its sparse slots, scanned here because its dense counts are
    /// written again at the next sample.
    var frozen: FrozenSamples {
        if spilled { return .sparse(dense.sparse) }
        return values.isEmpty ? .none : .values(values, dense.layout)
    }

    /// The samples as sparse slots, emptied for the next second (the dense form keeps its allocation).
    mutating func takeSparse() -> SparseHistogram {
        if spilled {
            spilled = false
            return dense.takeSparse()
        }
        let result = SparseHistogram(layout: dense.layout, samples: values)
        values.removeAll(keepingCapacity: true)
        return result
    }
}

/// An open second's samples as `OpenInterval.frozen` hands them over.
enum FrozenSamples: Sendable {
    case none
    case values([Int64], HdrLayout)
    case sparse(SparseHistogram)

    /// nil when there are none, as `OpenInterval.isEmpty` says.
    var sparse: SparseHistogram? {
        switch self {
        case .none: nil
        case .values(let values, let layout): SparseHistogram(layout: layout, samples: values)
        case .sparse(let sparse): sparse.totalCount == 0 ? nil : sparse
        }
    }
}

extension SparseHistogram {
    /// The slots of raw samples, clamped as `HdrHistogram.record` clamps them (below 0 to 0, above the highest
    /// trackable value to it, counted as overflow).
    init(layout: HdrLayout, samples: [Int64]) {
        guard !samples.isEmpty else {
            self.init(layout: layout, indices: [], counts: [], totalCount: 0, overflowCount: 0, min: 0, max: 0)
            return
        }
        var overflow: Int64 = 0
        var low = Int64.max
        var high: Int64 = 0
        var distinct = 0
        var counts: [Int64] = []
        var indices: [Int32] = []
        // The slots sorted in scratch memory, by insertion for a second's few samples (at most `spillAt`): the
        // array of slots and the standard library's stable sort were ~5 k of the ~7 k instructions of a metric's
        // seal at the bench's rate (issue 33, round 3). Same slots, same order.
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: samples.count) { slots in
            for (i, sample) in samples.enumerated() {
                var value = sample < 0 ? 0 : sample
                if value > layout.highestTrackableValue {
                    value = layout.highestTrackableValue
                    overflow += 1
                }
                low = Swift.min(low, value)
                high = Swift.max(high, value)
                slots[i] = Int32(layout.countsIndex(value))
            }
            Self.sortSlots(slots)
            // Runs of equal slots counted straight into the new arrays' storage (an append per slot before).
            indices = [Int32](unsafeUninitializedCapacity: slots.count) { outIndex, indexCount in
                counts = [Int64](unsafeUninitializedCapacity: slots.count) { outCount, countCount in
                    var n = 0
                    for slot in slots {
                        if n > 0, outIndex[n - 1] == slot {
                            outCount[n - 1] += 1
                        } else {
                            outIndex[n] = slot
                            outCount[n] = 1
                            n += 1
                        }
                    }
                    distinct = n
                    countCount = n
                }
                indexCount = distinct
            }
        }
        self.init(layout: layout, indices: indices, counts: counts, totalCount: Int64(samples.count),
                  overflowCount: overflow, min: low, max: high)
    }

    /// Ascending order: insertion for up to `OpenInterval.spillAt` slots, the standard sort beyond.
    static func sortSlots(_ slots: UnsafeMutableBufferPointer<Int32>) {
        guard slots.count <= OpenInterval.spillAt else {
            var all = slots
            return all.sort()
        }
        guard slots.count > 1 else { return }
        for i in 1..<slots.count {
            let slot = slots[i]
            var j = i
            while j > 0, slots[j - 1] > slot {
                slots[j] = slots[j - 1]
                j -= 1
            }
            slots[j] = slot
        }
    }
}
