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

// MARK: - Slots (OTLP exponential histograms)

extension SparseHistogram {
    /// Every non-zero slot, ascending: the smallest and largest value it stands for and its count. An exporter
    /// re-buckets these (OTLP's exponential histogram) without reaching into the layout.
    public func forEachSlot(_ body: (_ lowest: Int64, _ highest: Int64, _ count: Int64) -> Void) {
        forEachNonZero { index, count in
            body(layout.lowestEquivalentValue(atIndex: index), layout.highestEquivalentValue(atIndex: index), count)
            return true
        }
    }
}
