// MARK: - The checkpoint's snapshot, frozen on the recording thread and imaged elsewhere

extension Recorder {
    /// Every reading as of now, for a checkpoint: what `image` holds, made in the few steps per metric that must
    /// happen while the recorder stands still (the open second's samples taken out, everything else shared), so the
    /// rest of `image` (sparse totals and intervals added up, every name hashed into the image's dictionaries) can
    /// run on the writer's thread. The worker's 1-s tick built the whole image on its own turn (0.2–0.5 ms every
    /// other second on the capacity bench, a start due meanwhile waiting behind it; issue 33).
    ///
    /// Nothing frozen shares a buffer the recorder writes again without copying it first: sealed intervals,
    /// kept totals, counter states and gauges are values the recorder replaces rather than changes in place
    /// (its next write copies the small containers holding them), and a dense open second is scanned here.
    public var frozen: RecorderFreeze {
        var frozenMetrics: [RecorderFreeze.FrozenMetric] = []
        frozenMetrics.reserveCapacity(metrics.count)
        for i in 0..<metrics.count {
            let state = metrics[i]
            let open = state.open.frozen
            // `totalSparse`'s rule: the kept total while it still matches the dense one, else a scan of it.
            if let cached = state.sealedTotal, cached.totalCount + state.open.count == state.total.totalCount {
                frozenMetrics.append(.init(total: cached, totalLacksOpen: true, open: open,
                                           openSecond: state.openSecond, sealed: state.sealed))
            } else {
                frozenMetrics.append(.init(total: state.total.sparse, totalLacksOpen: false, open: open,
                                           openSecond: state.openSecond, sealed: state.sealed))
            }
        }
        return RecorderFreeze(
            runStartNanos: runStartNanos, lowestDiscernibleValue: lowestDiscernibleValue,
            highestTrackableValue: highestTrackableValue, significantDigits: significantDigits,
            metricNames: metrics.names, metrics: frozenMetrics, counterNames: counterStates.names,
            counters: counterStates.states, gauges: gauges)
    }
}

/// A recorder's readings at one instant (`Recorder.frozen`), plain values any thread may turn into the
/// `RecorderImage` the recorder itself would have made then.
public struct RecorderFreeze: Sendable {
    struct FrozenMetric: Sendable {
        /// The run total, without the open second's samples when `totalLacksOpen`.
        var total: SparseHistogram
        var totalLacksOpen: Bool
        var open: FrozenSamples
        var openSecond: Int?
        var sealed: [Int: SparseHistogram]
    }

    let runStartNanos: UInt64
    let lowestDiscernibleValue: Int64
    let highestTrackableValue: Int64
    let significantDigits: Int
    let metricNames: [String]
    let metrics: [FrozenMetric]
    let counterNames: [String]
    let counters: [Recorder.CounterState]
    let gauges: [String: [Int: Double]]

    /// The image `Recorder.image` made at the instant of the freeze: the same totals, intervals, counters, series
    /// and gauges, keyed in the same order.
    public var image: RecorderImage {
        var histograms: [String: SparseHistogram] = [:]
        var intervals: [String: [Int: SparseHistogram]] = [:]
        histograms.reserveCapacity(metrics.count)
        intervals.reserveCapacity(metrics.count)
        for (name, metric) in zip(metricNames, metrics) {
            let open = metric.open.sparse
            histograms[name] = metric.totalLacksOpen ? open.map { metric.total.adding($0) } ?? metric.total
                : metric.total
            var seconds = metric.sealed
            if let second = metric.openSecond, let open {
                seconds[second] = seconds[second].map { $0.adding(open) } ?? open
            }
            intervals[name] = seconds
        }
        var totals: [String: Int64] = [:]
        var series: [String: [Int: Int64]] = [:]
        totals.reserveCapacity(counters.count)
        series.reserveCapacity(counters.count)
        for (name, counter) in zip(counterNames, counters) {
            totals[name] = counter.total
            series[name] = counter.allSeries
        }
        return RecorderImage(
            runStartNanos: runStartNanos, lowestDiscernibleValue: lowestDiscernibleValue,
            highestTrackableValue: highestTrackableValue, significantDigits: significantDigits,
            histograms: histograms, intervals: intervals, counters: totals, counterSeries: series, gauges: gauges)
    }
}

extension Recorder {
    /// Counter totals as two arrays in the recorder's own order, the names shared with it: for another thread to
    /// key by name (`counters` hashed every name on the recording thread, each second for the live snapshot).
    public var counterTotals: (names: [String], totals: [Int64]) {
        var totals: [Int64] = []
        totals.reserveCapacity(counterStates.count)
        for i in 0..<counterStates.count { totals.append(counterStates.states[i].total) }
        return (counterStates.names, totals)
    }
}
