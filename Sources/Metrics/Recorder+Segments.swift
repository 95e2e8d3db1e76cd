// MARK: - Segments: keeping a long run's memory flat

extension Recorder {
    /// Moves every per-second reading of the seconds before `second` (sealed intervals, counter series, gauges)
    /// out of this recorder into a new one, and returns it; totals stay here.
    ///
    /// A journal calls this at each checkpoint and writes the result once, so a worker's memory holds the run's
    /// totals and its last seconds, not one interval histogram per metric per second of an hour-long soak.
    /// The returned segment has empty totals: merging it back (`merge`) restores exactly the recorder before the
    /// call. A sample that arrives later for a detached second lands in the next segment; merging adds them.
    public mutating func detachSeries(before second: Int) -> Recorder {
        var segment = Recorder(
            runStartNanos: runStartNanos, lowestDiscernibleValue: lowestDiscernibleValue,
            highestTrackableValue: highestTrackableValue, significantDigits: significantDigits)
        for i in 0..<metrics.count {
            if let open = metrics[i].openSecond, open < second { metrics[i].seal() }
            let old = metrics[i].sealed.filter { $0.key < second }
            guard !old.isEmpty else { continue }
            for key in old.keys { metrics[i].sealed[key] = nil }
            var moved = newMetricState()
            moved.sealed = old
            let metric = metrics.metric(at: i)
            segment.metrics[segment.metrics.index(of: metric) { moved }] = moved
        }
        for i in 0..<counterStates.count {
            if counterStates[i].openSecond >= 0, counterStates[i].openSecond < second { counterStates[i].seal() }
            let old = counterStates[i].perSecond.filter { $0.key < second }
            guard !old.isEmpty else { continue }
            for key in old.keys { counterStates[i].perSecond[key] = nil }
            let moved = CounterState(total: 0, perSecond: old)
            segment.counterStates[segment.counterStates.index(of: counterStates.metric(at: i)) { moved }] = moved
        }
        for name in Array(gauges.keys) {
            let old = gauges[name]!.filter { $0.key < second }
            guard !old.isEmpty else { continue }
            for key in old.keys { gauges[name]![key] = nil }
            segment.gauges[name] = old
        }
        return segment
    }

    /// How many sparse slots its per-second readings hold (interval slots, counter and gauge seconds): what a
    /// segment kept in memory costs, ~12 bytes each (`RecorderCheckpointer`'s held segments).
    public var sparseSlotCount: Int {
        var slots = 0
        for i in 0..<metrics.count {
            for interval in metrics[i].sealed.values { slots += interval.indices.count }
        }
        for i in 0..<counterStates.count { slots += counterStates[i].perSecond.count }
        for series in gauges.values { slots += series.count }
        return slots
    }

    /// Whether it holds no reading at all (a segment with nothing in it is not written).
    public var isEmpty: Bool { metrics.isEmpty && counterStates.isEmpty && gauges.isEmpty }

    /// Every reading in plain sparse values, made on the recording thread: the image shares no buffer the
    /// recorder will write again, so another thread may encode it while recording goes on.
    public var image: RecorderImage {
        RecorderImage(
            runStartNanos: runStartNanos, lowestDiscernibleValue: lowestDiscernibleValue,
            highestTrackableValue: highestTrackableValue, significantDigits: significantDigits,
            histograms: metrics.byName(\.totalSparse), intervals: intervals, counters: counters,
            counterSeries: counterStates.byName(\.allSeries), gauges: gauges)
    }
}

/// A recorder frozen into sparse values for writing: the JSON it encodes is the recorder's own format, so
/// `Recorder(from:)` reads it back.
public struct RecorderImage: Sendable, Encodable {
    public let runStartNanos: UInt64
    public let lowestDiscernibleValue: Int64
    public let highestTrackableValue: Int64
    public let significantDigits: Int
    public let histograms: [String: SparseHistogram]
    public let intervals: [String: [Int: SparseHistogram]]
    public let counters: [String: Int64]
    public let counterSeries: [String: [Int: Int64]]
    public let gauges: [String: [Int: Double]]
}
