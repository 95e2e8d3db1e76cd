/// A latency histogram with bounded relative error and constant memory, after Gil Tene's HdrHistogram.
///
/// Values are microseconds by convention. Recording is O(1) integer work into one flat counts array, so a worker
/// can record on its hot path; histograms with the same configuration add exactly, which is how per-worker and
/// per-shard results merge. Percentiles follow HdrHistogram (the highest value equivalent to the slot holding the
/// p-th sample) but are clamped to the exactly tracked `min` and `max`, so a report never shows p99 above max.
public struct HdrHistogram: Sendable, Equatable {
    let layout: HdrLayout
    /// One slot per distinguishable value range; see `HdrLayout`.
    private(set) var counts: [Int64]
    public private(set) var totalCount: Int64 = 0
    /// Samples that were above `highestTrackableValue` and were recorded as that value instead.
    public private(set) var overflowCount: Int64 = 0
    /// `Int64.max` while empty so the first sample always lowers it; read through `min`.
    private var minValue: Int64 = .max
    private var maxValue: Int64 = 0

    /// - Parameters:
    ///   - lowestDiscernibleValue: smallest value told apart from 0 (at least 1).
    ///   - highestTrackableValue: larger samples are clamped to it and counted in `overflowCount`.
    ///   - significantDigits: decimal digits of precision kept at every magnitude, 0...5.
    public init(
        lowestDiscernibleValue: Int64 = 1,
        highestTrackableValue: Int64 = 3_600_000_000,
        significantDigits: Int = 3
    ) {
        self.init(layout: HdrLayout(
            lowest: lowestDiscernibleValue,
            highest: highestTrackableValue,
            significantDigits: significantDigits
        ))
    }

    init(layout: HdrLayout) {
        self.layout = layout
        counts = Array(repeating: 0, count: layout.countsLength)
    }

    public var lowestDiscernibleValue: Int64 { layout.lowestDiscernibleValue }
    public var highestTrackableValue: Int64 { layout.highestTrackableValue }
    public var significantDigits: Int { layout.significantDigits }

    /// Smallest recorded value (after clamping), exactly; 0 when empty.
    public var min: Int64 { totalCount == 0 ? 0 : minValue }
    /// Largest recorded value (after clamping), exactly; 0 when empty.
    public var max: Int64 { maxValue }
    public var isEmpty: Bool { totalCount == 0 }

    // MARK: - Recording

    /// Records one sample. Negative values count as 0; values above `highestTrackableValue` are clamped.
    @inline(__always)
    public mutating func record(_ value: Int64) {
        record(value, count: 1)
    }

    /// Records `count` samples of `value`, for pre-aggregated data and for tests with huge counts.
    public mutating func record(_ value: Int64, count: Int64) {
        precondition(count >= 0, "HdrHistogram.record: count must not be negative, got \(count)")
        guard count > 0 else { return }
        var clamped = value < 0 ? 0 : value
        if clamped > layout.highestTrackableValue {
            clamped = layout.highestTrackableValue
            overflowCount += count
        }
        counts[layout.countsIndex(clamped)] += count
        totalCount += count
        if clamped < minValue { minValue = clamped }
        if clamped > maxValue { maxValue = clamped }
    }

    /// Adds every sample of `other`, which must have the same configuration.
    public mutating func add(_ other: HdrHistogram) {
        precondition(layout == other.layout, "HdrHistogram.add: configurations differ (\(layout) vs \(other.layout))")
        guard !other.isEmpty else { return }
        other.forEachNonZero { index, count in
            counts[index] += count
            return true
        }
        absorbSummary(total: other.totalCount, overflow: other.overflowCount, min: other.minValue, max: other.maxValue)
    }

    /// Adds every sample of a sparse histogram, which must have the same configuration.
    public mutating func add(_ sparse: SparseHistogram) {
        precondition(layout == sparse.layout, "HdrHistogram.add: configurations differ (\(layout) vs \(sparse.layout))")
        guard !sparse.isEmpty else { return }
        for (position, index) in sparse.indices.enumerated() {
            counts[Int(index)] += sparse.counts[position]
        }
        absorbSummary(total: sparse.totalCount, overflow: sparse.overflowCount, min: sparse.min, max: sparse.max)
    }

    private mutating func absorbSummary(total: Int64, overflow: Int64, min: Int64, max: Int64) {
        totalCount += total
        overflowCount += overflow
        minValue = Swift.min(minValue, min)
        maxValue = Swift.max(maxValue, max)
    }

    /// Empties the histogram. Only the slots between the recorded extremes can be non-zero, so only those are
    /// cleared: cheap for a one-second interval whose samples span a few buckets.
    public mutating func reset() {
        if totalCount > 0 {
            let range = layout.countsIndex(minValue)...layout.countsIndex(maxValue)
            // One fill of the span (a `memset`), not a store per slot: a busy second's span is thousands of slots.
            counts.withUnsafeMutableBufferPointer { buffer in
                UnsafeMutableBufferPointer(rebasing: buffer[range]).update(repeating: 0)
            }
        }
        totalCount = 0
        overflowCount = 0
        minValue = .max
        maxValue = 0
    }

    // MARK: - Sparse form

    /// The non-zero slots only; scans just the range between the recorded extremes.
    public var sparse: SparseHistogram {
        var indices: [Int32] = []
        var values: [Int64] = []
        forEachNonZero { index, count in
            indices.append(Int32(index))
            values.append(count)
            return true
        }
        return SparseHistogram(
            layout: layout, indices: indices, counts: values,
            totalCount: totalCount, overflowCount: overflowCount, min: min, max: max
        )
    }

    /// Returns the sparse form and empties the histogram, the per-second sealing step of `Recorder`.
    public mutating func takeSparse() -> SparseHistogram {
        let result = sparse
        reset()
        return result
    }

    /// Rebuilds a dense histogram, e.g. to merge many sparse intervals.
    public init(_ sparse: SparseHistogram) {
        self.init(layout: sparse.layout)
        add(sparse)
    }

    // MARK: - Statistics

    /// Value at percentile `p` (0...100): the highest value equivalent to the p-th sample, clamped to
    /// `min...max`; 0 when empty.
    public func value(atPercentile p: Double) -> Int64 {
        computeValue(atPercentile: p)
    }

    /// Mean of the slot midpoints (clamped to the exact extremes); 0 when empty.
    public var mean: Double { computeMean() }

    /// `value(atPercentile:)` of each of `percentiles` and `mean`, from one walk of the slots.
    public func figures(atPercentiles percentiles: [Double]) -> HistogramFigures {
        computeFigures(atPercentiles: percentiles)
    }

    /// Population standard deviation of the slot midpoints; 0 when empty.
    public var standardDeviation: Double { computeStandardDeviation() }

    /// HdrHistogram's percentile output: `ticksPerHalfDistance` points per halving of the distance to 100 %.
    public func percentileDistribution(ticksPerHalfDistance: Int = 5) -> [PercentilePoint] {
        computePercentileDistribution(ticksPerHalfDistance: ticksPerHalfDistance)
    }

    /// Number of distinct values stored as `value`: two samples closer than this may be reported as equal.
    public func equivalentRangeSize(of value: Int64) -> Int64 {
        layout.equivalentRangeSize(of: value)
    }
}

// MARK: - Shared statistics

extension HdrHistogram: HdrStatistics {
    func forEachNonZero(_ body: (_ index: Int, _ count: Int64) -> Bool) {
        guard totalCount > 0 else { return }
        let range = layout.countsIndex(minValue)...layout.countsIndex(maxValue)
        // Empty slots skipped eight at a time (one OR of eight words): a histogram's span from its minimum to its
        // maximum is mostly zeros, thousands of slots at three digits, and the report's percentiles and means
        // scanned it slot by slot per figure (~55,000 instructions per call of the SIP bench, issue 33).
        counts.withUnsafeBufferPointer { buffer in
            var index = range.lowerBound
            let end = range.upperBound + 1
            while index < end {
                let next = Swift.min(index + 8, end)
                if next == index + 8, buffer[index] | buffer[index + 1] | buffer[index + 2] | buffer[index + 3]
                    | buffer[index + 4] | buffer[index + 5] | buffer[index + 6] | buffer[index + 7] == 0 {
                    index = next
                    continue
                }
                while index < next {
                    if buffer[index] != 0, !body(index, buffer[index]) { return }
                    index += 1
                }
            }
        }
    }
}

// MARK: - Codable

/// Encoded in sparse form: a full counts array is ~190 kB of mostly zeros for the default range.
extension HdrHistogram: Codable {
    public init(from decoder: Decoder) throws {
        self.init(try SparseHistogram(from: decoder))
    }

    public func encode(to encoder: Encoder) throws {
        try sparse.encode(to: encoder)
    }
}
