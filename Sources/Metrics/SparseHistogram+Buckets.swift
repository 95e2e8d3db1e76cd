// MARK: - Cumulative counts (Prometheus buckets)

extension SparseHistogram {
    /// Samples recorded at or below `value`, to HdrHistogram precision: a sample counts when it fell in the same
    /// equivalent-value range as `value` or a lower one. Overflowed samples count as above every value.
    public func count(atOrBelow value: Int64) -> Int64 {
        guard value >= 0 else { return 0 }
        let limit = value >= highestTrackableValue ? Int.max : layout.countsIndex(value)
        var total: Int64 = 0
        forEachNonZero { index, count in
            guard index <= limit else { return false }
            total += count
            return true
        }
        return total
    }
}
