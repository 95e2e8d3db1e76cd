/// Everything one worker measures during a run: a run-total histogram and per-second interval histograms per
/// latency metric, counters with per-second series, and per-second gauges.
///
/// A recorder is owned by one worker and mutated only there, so it takes no locks; workers' and shards'
/// recorders are combined afterwards with `merge`. Memory grows per second per metric (one sparse histogram,
/// one counter cell), never per sample: each metric keeps one dense histogram for the second in progress and
/// seals it into sparse form when the second changes.
public struct Recorder: Sendable {
    /// Monotonic nanoseconds at which second 0 of the series begins.
    public let runStartNanos: UInt64
    /// Configuration of every histogram this recorder creates; recorders merge only with the same one.
    public let lowestDiscernibleValue: Int64
    public let highestTrackableValue: Int64
    public let significantDigits: Int

    /// Per-metric state, one dictionary lookup per sample.
    struct MetricState: Sendable {
        var total: HdrHistogram
        /// Dense histogram of the second in progress; empty when `openSecond` is nil.
        var open: HdrHistogram
        var openSecond: Int?
        var sealed: [Int: SparseHistogram] = [:]

        /// The open interval folded into the sealed ones, without mutating.
        var allIntervals: [Int: SparseHistogram] {
            guard let second = openSecond, !open.isEmpty else { return sealed }
            var result = sealed
            let current = open.sparse
            result[second] = result[second].map { $0.adding(current) } ?? current
            return result
        }

        mutating func seal() {
            guard let second = openSecond else { return }
            if !open.isEmpty {
                let current = open.takeSparse()
                // A late sample can reopen an earlier second; fold it into what was sealed before.
                sealed[second] = sealed[second].map { $0.adding(current) } ?? current
            }
            openSecond = nil
        }
    }

    struct CounterState: Sendable, Equatable, Codable {
        var total: Int64 = 0
        var perSecond: [Int: Int64] = [:]
    }

    var metrics: [String: MetricState] = [:]
    var counterStates: [String: CounterState] = [:]
    var gauges: [String: [Int: Double]] = [:]
    /// Copied (copy-on-write) into each new metric, so its counts array is allocated at the first sample only.
    let emptyTemplate: HdrHistogram

    /// - Parameter runStartNanos: the run's start on the same monotonic clock as later `atNanos` arguments.
    public init(
        runStartNanos: UInt64,
        lowestDiscernibleValue: Int64 = 1,
        highestTrackableValue: Int64 = 3_600_000_000,
        significantDigits: Int = 3
    ) {
        self.runStartNanos = runStartNanos
        self.lowestDiscernibleValue = lowestDiscernibleValue
        self.highestTrackableValue = highestTrackableValue
        self.significantDigits = significantDigits
        emptyTemplate = HdrHistogram(
            lowestDiscernibleValue: lowestDiscernibleValue,
            highestTrackableValue: highestTrackableValue,
            significantDigits: significantDigits
        )
    }

    /// Whole seconds since the run started; a timestamp before the start counts as second 0.
    @inline(__always)
    public func second(atNanos: UInt64) -> Int {
        atNanos <= runStartNanos ? 0 : Int((atNanos - runStartNanos) / 1_000_000_000)
    }

    func newMetricState() -> MetricState {
        MetricState(total: emptyTemplate, open: emptyTemplate, openSecond: nil)
    }

    // MARK: - Recording (worker hot path)

    /// Records a latency sample into the metric's run total and into the interval of the second `atNanos` falls in.
    public mutating func record(_ metric: Metric, micros: Int64, atNanos: UInt64) {
        let second = second(atNanos: atNanos)
        let template = emptyTemplate
        metrics[metric.name, default: MetricState(total: template, open: template, openSecond: nil)]
            .recordSample(micros, second: second)
    }

    /// Adds `delta` to a counter's total and to its series at the second `atNanos` falls in.
    public mutating func count(_ counter: Metric, by delta: Int64 = 1, atNanos: UInt64) {
        let second = second(atNanos: atNanos)
        counterStates[counter.name, default: CounterState()].add(delta, second: second)
    }

    /// Sets a gauge for the second `atNanos` falls in; the last value within a second wins. Non-finite values are
    /// ignored because they cannot be written to the JSON results bundle.
    public mutating func gauge(_ name: String, value: Double, atNanos: UInt64) {
        guard value.isFinite else { return }
        gauges[name, default: [:]][second(atNanos: atNanos)] = value
    }

    /// Seals every open interval; call once at the end of the run. Reads and encoding already include the
    /// second in progress, so this only turns the last dense intervals into their compact sparse form.
    public mutating func seal() {
        for name in Array(metrics.keys) {
            metrics[name]!.seal()
        }
    }

    // MARK: - Merging

    /// Adds another worker's or shard's results: histograms and counters add, intervals and counter series add
    /// per second, and gauges of the same second are summed because each worker reports its own share.
    /// Both recorders must use the same histogram configuration; `other`'s seconds are taken as aligned with ours.
    public mutating func merge(_ other: Recorder) {
        precondition(
            lowestDiscernibleValue == other.lowestDiscernibleValue
                && highestTrackableValue == other.highestTrackableValue
                && significantDigits == other.significantDigits,
            "Recorder.merge: histogram configurations differ"
        )
        for (name, theirs) in other.metrics {
            var mine = metrics[name] ?? newMetricState()
            mine.total.add(theirs.total)
            for (second, interval) in theirs.allIntervals {
                mine.sealed[second] = mine.sealed[second].map { $0.adding(interval) } ?? interval
            }
            metrics[name] = mine
        }
        for (name, theirs) in other.counterStates {
            var mine = counterStates[name] ?? CounterState()
            mine.total += theirs.total
            mine.perSecond.merge(theirs.perSecond, uniquingKeysWith: +)
            counterStates[name] = mine
        }
        for (name, theirs) in other.gauges {
            gauges[name, default: [:]].merge(theirs, uniquingKeysWith: +)
        }
    }

    // MARK: - Reading

    /// Run-total histogram per metric.
    public var histograms: [String: HdrHistogram] {
        metrics.mapValues(\.total)
    }

    /// Run-total histograms as windows (`HdrWindow`): for another thread, sharing no buffer the recorder writes.
    public var histogramWindows: [String: HdrWindow] {
        metrics.mapValues(\.total.window)
    }

    /// Counter totals.
    public var counters: [String: Int64] {
        counterStates.mapValues(\.total)
    }

    /// Interval histograms per metric per second, including the second still open.
    public var intervals: [String: [Int: SparseHistogram]] {
        metrics.mapValues(\.allIntervals)
    }

    public var metricNames: [String] { metrics.keys.sorted() }
    public var counterNames: [String] { counterStates.keys.sorted() }
    public var gaugeNames: [String] { gauges.keys.sorted() }

    /// Per-second summary of a metric, sorted by second; empty for an unknown metric.
    public func intervalStats(_ metric: String) -> [IntervalStat] {
        guard let state = metrics[metric] else { return [] }
        return state.allIntervals
            .sorted { $0.key < $1.key }
            .map { IntervalStat(second: $0.key, histogram: $0.value) }
    }

    /// Per-second sums of a counter, sorted by second; seconds without increments are absent.
    public func counterSeries(_ name: String) -> [(second: Int, value: Int64)] {
        (counterStates[name]?.perSecond ?? [:])
            .sorted { $0.key < $1.key }
            .map { (second: $0.key, value: $0.value) }
    }

    /// Per-second gauge values, sorted by second; seconds without a report are absent.
    public func gaugeSeries(_ name: String) -> [(second: Int, value: Double)] {
        (gauges[name] ?? [:])
            .sorted { $0.key < $1.key }
            .map { (second: $0.key, value: $0.value) }
    }
}

extension Recorder.MetricState {
    @inline(__always)
    mutating func recordSample(_ micros: Int64, second: Int) {
        total.record(micros)
        if openSecond != second {
            seal()
            openSecond = second
        }
        open.record(micros)
    }
}

extension Recorder.CounterState {
    @inline(__always)
    mutating func add(_ delta: Int64, second: Int) {
        total += delta
        perSecond[second, default: 0] += delta
    }
}
