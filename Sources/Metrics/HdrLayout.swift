/// The bucket geometry shared by `HdrHistogram` and `SparseHistogram`.
///
/// HdrHistogram splits the value range into buckets that each double the one before; every bucket holds
/// `subBucketHalfCount` linear sub-buckets (the first bucket holds twice as many), so that any value is stored
/// with a relative error below 10^-significantDigits. Keeping the arithmetic in one place lets the dense and the
/// sparse form agree on every index without converting between them.
struct HdrLayout: Sendable, Hashable {
    let lowestDiscernibleValue: Int64
    let highestTrackableValue: Int64
    let significantDigits: Int

    /// log2 of the lowest discernible value, rounded down: values below `1 << unitMagnitude` share bucket slots.
    let unitMagnitude: Int
    let subBucketHalfCountMagnitude: Int
    let subBucketCount: Int
    let subBucketHalfCount: Int
    let subBucketMask: Int64
    /// Turns a leading-zero count into a bucket index with one subtraction.
    let leadingZeroCountBase: Int
    let bucketCount: Int
    let countsLength: Int

    /// Returns nil instead of trapping so decoders can reject bad files with a message.
    static func validationProblem(lowest: Int64, highest: Int64, significantDigits: Int) -> String? {
        if lowest < 1 {
            return "lowestDiscernibleValue must be at least 1, got \(lowest)"
        }
        if !(0...5).contains(significantDigits) {
            return "significantDigits must be in 0...5, got \(significantDigits)"
        }
        if lowest > Int64.max / 2 || highest < 2 * lowest {
            return "highestTrackableValue (\(highest)) must be at least twice lowestDiscernibleValue (\(lowest))"
        }
        return nil
    }

    init(lowest: Int64, highest: Int64, significantDigits: Int) {
        let problem = Self.validationProblem(lowest: lowest, highest: highest, significantDigits: significantDigits)
        if let problem {
            preconditionFailure("HdrHistogram configuration: \(problem)")
        }
        lowestDiscernibleValue = lowest
        highestTrackableValue = highest
        self.significantDigits = significantDigits

        var largestValueWithSingleUnitResolution: Int64 = 2
        for _ in 0..<significantDigits { largestValueWithSingleUnitResolution *= 10 }
        // ceil(log2(x)) for x > 1 is the bit width of x - 1.
        let subBucketCountMagnitude = 64 - (largestValueWithSingleUnitResolution - 1).leadingZeroBitCount
        subBucketHalfCountMagnitude = Swift.max(subBucketCountMagnitude, 1) - 1
        unitMagnitude = 63 - lowest.leadingZeroBitCount
        precondition(
            unitMagnitude + subBucketHalfCountMagnitude <= 61,
            "HdrHistogram configuration: lowestDiscernibleValue \(lowest) is too large for \(significantDigits) digits"
        )
        subBucketCount = 1 << (subBucketHalfCountMagnitude + 1)
        subBucketHalfCount = subBucketCount / 2
        subBucketMask = Int64(subBucketCount - 1) << Int64(unitMagnitude)
        leadingZeroCountBase = 64 - unitMagnitude - subBucketHalfCountMagnitude - 1

        var smallestUntrackableValue = Int64(subBucketCount) << Int64(unitMagnitude)
        var bucketsNeeded = 1
        while smallestUntrackableValue <= highest {
            if smallestUntrackableValue > Int64.max / 2 {
                bucketsNeeded += 1
                break
            }
            smallestUntrackableValue <<= 1
            bucketsNeeded += 1
        }
        bucketCount = bucketsNeeded
        countsLength = (bucketsNeeded + 1) * subBucketHalfCount
    }

    // MARK: - Value to index (hot path: integer operations only)

    /// Index into the flat counts array for a value in `0...highestTrackableValue`.
    @inline(__always)
    func countsIndex(_ value: Int64) -> Int {
        let bucketIndex = leadingZeroCountBase - (value | subBucketMask).leadingZeroBitCount
        let subBucketIndex = Int(truncatingIfNeeded: value >> Int64(bucketIndex + unitMagnitude))
        return ((bucketIndex + 1) << subBucketHalfCountMagnitude) + (subBucketIndex - subBucketHalfCount)
    }

    // MARK: - Index to values

    @inline(__always)
    private func bucketAndSubBucket(_ index: Int) -> (bucket: Int, subBucket: Int) {
        var bucketIndex = (index >> subBucketHalfCountMagnitude) - 1
        var subBucketIndex = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
        if bucketIndex < 0 {
            subBucketIndex -= subBucketHalfCount
            bucketIndex = 0
        }
        return (bucketIndex, subBucketIndex)
    }

    /// Smallest value that lands in the slot at `index`.
    func lowestEquivalentValue(atIndex index: Int) -> Int64 {
        let (bucket, subBucket) = bucketAndSubBucket(index)
        return Int64(subBucket) << Int64(bucket + unitMagnitude)
    }

    /// Number of distinct values that share the slot at `index`.
    func equivalentRangeSize(atIndex index: Int) -> Int64 {
        let (bucket, _) = bucketAndSubBucket(index)
        return Int64(1) << Int64(bucket + unitMagnitude)
    }

    /// Largest value that lands in the slot at `index`: what HdrHistogram reports for a percentile.
    func highestEquivalentValue(atIndex index: Int) -> Int64 {
        lowestEquivalentValue(atIndex: index) + equivalentRangeSize(atIndex: index) - 1
    }

    /// Middle of the slot at `index`: the representative used for mean and standard deviation.
    func medianEquivalentValue(atIndex index: Int) -> Int64 {
        lowestEquivalentValue(atIndex: index) + equivalentRangeSize(atIndex: index) / 2
    }

    /// Number of distinct values that are stored as `value`, i.e. the resolution at that magnitude.
    func equivalentRangeSize(of value: Int64) -> Int64 {
        equivalentRangeSize(atIndex: countsIndex(Swift.min(Swift.max(value, 0), highestTrackableValue)))
    }
}
