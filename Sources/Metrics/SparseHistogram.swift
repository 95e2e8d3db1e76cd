/// An `HdrHistogram` reduced to its non-zero slots, so one second's interval costs memory proportional to the
/// distinct value ranges it saw rather than the full counts array.
///
/// It answers the same statistics as the dense form (computed from the same slots, so they agree exactly) and
/// adds into a dense histogram; `Recorder` keeps one per metric per second.
public struct SparseHistogram: Sendable, Equatable {
    let layout: HdrLayout
    /// Ascending slot indices with a non-zero count.
    public let indices: [Int32]
    /// Count of each slot in `indices`, all positive.
    public let counts: [Int64]
    public let totalCount: Int64
    public let overflowCount: Int64
    /// Exact smallest recorded value; 0 when empty.
    public let min: Int64
    /// Exact largest recorded value; 0 when empty.
    public let max: Int64

    init(
        layout: HdrLayout, indices: [Int32], counts: [Int64],
        totalCount: Int64, overflowCount: Int64, min: Int64, max: Int64
    ) {
        self.layout = layout
        self.indices = indices
        self.counts = counts
        self.totalCount = totalCount
        self.overflowCount = overflowCount
        self.min = min
        self.max = max
    }

    /// An empty sparse histogram with the given configuration.
    public init(
        lowestDiscernibleValue: Int64 = 1,
        highestTrackableValue: Int64 = 3_600_000_000,
        significantDigits: Int = 3
    ) {
        self.init(
            layout: HdrLayout(lowest: lowestDiscernibleValue, highest: highestTrackableValue,
                              significantDigits: significantDigits),
            indices: [], counts: [], totalCount: 0, overflowCount: 0, min: 0, max: 0
        )
    }

    public var lowestDiscernibleValue: Int64 { layout.lowestDiscernibleValue }
    public var highestTrackableValue: Int64 { layout.highestTrackableValue }
    public var significantDigits: Int { layout.significantDigits }
    public var isEmpty: Bool { totalCount == 0 }

    /// Sum of two sparse histograms with the same configuration, without expanding to the dense array.
    public func adding(_ other: SparseHistogram) -> SparseHistogram {
        precondition(layout == other.layout, "SparseHistogram.adding: configurations differ")
        if other.isEmpty { return self }
        if isEmpty { return other }
        let (mergedIndices, mergedCounts) = Self.merge(indices, counts, other.indices, other.counts)
        return SparseHistogram(
            layout: layout, indices: mergedIndices, counts: mergedCounts,
            totalCount: totalCount + other.totalCount, overflowCount: overflowCount + other.overflowCount,
            min: Swift.min(min, other.min), max: Swift.max(max, other.max)
        )
    }

    /// Two ascending slot lists merged, counts of a slot in both added: written straight into the new arrays'
    /// storage. Appending each slot (a uniqueness and a capacity check per element) made the recorder's seal, which
    /// adds each second's slots to the metric's running total at the second's first sample, most of a `record`'s
    /// ~2,400 instructions in the SIP instructions bench at 20 calls/s (issue 33).
    static func merge(_ li: [Int32], _ lc: [Int64], _ ri: [Int32], _ rc: [Int64]) -> ([Int32], [Int64]) {
        let capacity = li.count + ri.count
        var merged = 0
        var counts: [Int64] = []
        let indices = [Int32](unsafeUninitializedCapacity: capacity) { outIndex, indexCount in
            counts = [Int64](unsafeUninitializedCapacity: capacity) { outCount, countCount in
                li.withUnsafeBufferPointer { li in lc.withUnsafeBufferPointer { lc in
                    ri.withUnsafeBufferPointer { ri in rc.withUnsafeBufferPointer { rc in
                        var l = 0, r = 0, n = 0
                        while l < li.count, r < ri.count {
                            let a = li[l], b = ri[r]
                            if a < b {
                                outIndex[n] = a; outCount[n] = lc[l]; l += 1
                            } else if b < a {
                                outIndex[n] = b; outCount[n] = rc[r]; r += 1
                            } else {
                                outIndex[n] = a; outCount[n] = lc[l] + rc[r]; l += 1; r += 1
                            }
                            n += 1
                        }
                        while l < li.count { outIndex[n] = li[l]; outCount[n] = lc[l]; l += 1; n += 1 }
                        while r < ri.count { outIndex[n] = ri[r]; outCount[n] = rc[r]; r += 1; n += 1 }
                        merged = n
                    } }
                } }
                countCount = merged
            }
            indexCount = merged
        }
        return (indices, counts)
    }

    // MARK: - Statistics (same rules as HdrHistogram)

    public func value(atPercentile p: Double) -> Int64 {
        computeValue(atPercentile: p)
    }

    public var mean: Double { computeMean() }

    /// `value(atPercentile:)` of each of `percentiles` and `mean`, from one walk of the slots.
    public func figures(atPercentiles percentiles: [Double]) -> HistogramFigures {
        computeFigures(atPercentiles: percentiles)
    }

    public var standardDeviation: Double { computeStandardDeviation() }

    public func percentileDistribution(ticksPerHalfDistance: Int = 5) -> [PercentilePoint] {
        computePercentileDistribution(ticksPerHalfDistance: ticksPerHalfDistance)
    }
}

extension SparseHistogram: HdrStatistics {
    func forEachNonZero(_ body: (_ index: Int, _ count: Int64) -> Bool) {
        for position in indices.indices where !body(Int(indices[position]), counts[position]) {
            return
        }
    }
}

// MARK: - Codable

extension SparseHistogram: Codable {
    private enum CodingKeys: String, CodingKey {
        case lowestDiscernibleValue, highestTrackableValue, significantDigits
        case indices, counts, totalCount, overflowCount, min, max
    }

    /// Validates everything a later `add` or percentile query relies on, so a corrupt shard file fails to load
    /// with a message instead of trapping mid-merge.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let lowest = try container.decode(Int64.self, forKey: .lowestDiscernibleValue)
        let highest = try container.decode(Int64.self, forKey: .highestTrackableValue)
        let digits = try container.decode(Int.self, forKey: .significantDigits)
        func corrupt(_ message: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: container.codingPath, debugDescription: "SparseHistogram: \(message)"))
        }
        if let problem = HdrLayout.validationProblem(lowest: lowest, highest: highest, significantDigits: digits) {
            throw corrupt(problem)
        }
        let layout = HdrLayout(lowest: lowest, highest: highest, significantDigits: digits)
        let indices = try container.decode([Int32].self, forKey: .indices)
        let counts = try container.decode([Int64].self, forKey: .counts)
        let total = try container.decode(Int64.self, forKey: .totalCount)
        let overflow = try container.decode(Int64.self, forKey: .overflowCount)
        let min = try container.decode(Int64.self, forKey: .min)
        let max = try container.decode(Int64.self, forKey: .max)

        if let problem = Self.problem(layout: layout, indices: indices, counts: counts, total: total,
                                      overflow: overflow, min: min, max: max) {
            throw corrupt(problem)
        }
        self.init(layout: layout, indices: indices, counts: counts,
                  totalCount: total, overflowCount: overflow, min: min, max: max)
    }

    /// What is wrong with a decoded histogram's parts, nil when nothing (the reading of `Recorder.readWritten`
    /// asks the same).
    static func problem(layout: HdrLayout, indices: [Int32], counts: [Int64], total: Int64, overflow: Int64,
                        min: Int64, max: Int64) -> String? {
        guard indices.count == counts.count else { return "\(indices.count) indices but \(counts.count) counts" }
        var previous: Int32 = -1
        var sum: Int64 = 0
        for (index, count) in zip(indices, counts) {
            guard index > previous, Int(index) < layout.countsLength else {
                return "slot index \(index) is out of order or beyond \(layout.countsLength)"
            }
            guard count > 0 else { return "slot \(index) has non-positive count \(count)" }
            let (next, overflowed) = sum.addingReportingOverflow(count)
            guard !overflowed else { return "total count overflows Int64" }
            sum = next
            previous = index
        }
        guard sum == total else { return "totalCount \(total) differs from the sum of counts \(sum)" }
        guard (0...total).contains(overflow) else { return "overflowCount \(overflow) is out of range" }
        if total > 0 {
            guard 0 <= min, min <= max, max <= layout.highestTrackableValue,
                  layout.countsIndex(min) == Int(indices[0]),
                  layout.countsIndex(max) == Int(indices[indices.count - 1]) else {
                return "min \(min) / max \(max) do not match the first and last slots"
            }
        } else if min != 0 || max != 0 {
            return "an empty histogram must have min and max 0"
        }
        return nil
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(layout.lowestDiscernibleValue, forKey: .lowestDiscernibleValue)
        try container.encode(layout.highestTrackableValue, forKey: .highestTrackableValue)
        try container.encode(layout.significantDigits, forKey: .significantDigits)
        try container.encode(indices, forKey: .indices)
        try container.encode(counts, forKey: .counts)
        try container.encode(totalCount, forKey: .totalCount)
        try container.encode(overflowCount, forKey: .overflowCount)
        try container.encode(min, forKey: .min)
        try container.encode(max, forKey: .max)
    }
}
