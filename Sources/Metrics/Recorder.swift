import Locking

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

    /// Per-metric state, found by the metric's key (`MetricTable`).
    struct MetricState: Sendable {
        var total: HdrHistogram
        /// The second in progress; empty when `openSecond` is nil.
        var open: OpenInterval
        var openSecond: Int?
        var sealed: [Int: SparseHistogram] = [:]
        /// `total`'s sparse form without the open second's samples, kept from seal to seal (nil until the first):
        /// the checkpoint's image, once a second, adds the open second's few samples to it instead of scanning
        /// the dense total's span for every metric (`totalSparse`).
        var sealedTotal: SparseHistogram?

        /// `total` as sparse slots: `sealedTotal` with the open second added while it is current (its count checks
        /// that nothing else changed `total` since), else a scan of the dense total.
        var totalSparse: SparseHistogram {
            if let cached = sealedTotal, cached.totalCount + open.count == total.totalCount {
                return open.isEmpty ? cached : cached.adding(open.sparse)
            }
            return total.sparse
        }

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
                let cached = sealedTotal.flatMap { $0.totalCount + open.count == total.totalCount ? $0 : nil }
                let current = open.takeSparse()
                // A late sample can reopen an earlier second; fold it into what was sealed before.
                sealed[second] = sealed[second].map { $0.adding(current) } ?? current
                sealedTotal = cached.map { $0.adding(current) } ?? total.sparse
            }
            openSecond = nil
        }
    }

    /// A counter's total and series. The second in progress is added to in `openValue` and folded into
    /// `perSecond` when the second changes, so a count is two adds, not a dictionary update.
    struct CounterState: Sendable, Equatable {
        var total: Int64 = 0
        var perSecond: [Int: Int64] = [:]
        /// The second `openValue` belongs to; -1 when none is open.
        var openSecond = -1
        var openValue: Int64 = 0

        init(total: Int64 = 0, perSecond: [Int: Int64] = [:]) {
            self.total = total
            self.perSecond = perSecond
        }

        /// The series with the open second folded in, without mutating.
        var allSeries: [Int: Int64] {
            guard openSecond >= 0 else { return perSecond }
            var result = perSecond
            result[openSecond, default: 0] += openValue
            return result
        }

        /// Folds the open second into `perSecond`.
        mutating func seal() {
            guard openSecond >= 0 else { return }
            perSecond[openSecond, default: 0] += openValue
            openSecond = -1
            openValue = 0
        }

        /// Equal when every reading agrees, whether or not a second is still open.
        static func == (lhs: CounterState, rhs: CounterState) -> Bool {
            lhs.total == rhs.total && lhs.allSeries == rhs.allSeries
        }
    }

    /// Latency metrics and counters in arrays indexed by `Metric.key`; gauges (a few a second) by name.
    var metrics = MetricTable<MetricState>()
    var counterStates = MetricTable<CounterState>()
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
        emptyTemplate = Self.template(HdrLayout(
            lowest: lowestDiscernibleValue, highest: highestTrackableValue, significantDigits: significantDigits))
    }

    /// One empty histogram per configuration for the whole process, shared (copy-on-write) by every recorder: a
    /// recorder is made per checkpoint segment and per segment read back, and each zeroed its own counts array
    /// (188 KB at the default configuration) before.
    static let templates = Mutex<[HdrLayout: HdrHistogram]>([:])

    static func template(_ layout: HdrLayout) -> HdrHistogram {
        templates.withLock { templates in
            if let template = templates[layout] { return template }
            let template = HdrHistogram(layout: layout)
            templates[layout] = template
            return template
        }
    }

    /// Whole seconds since the run started; a timestamp before the start counts as second 0.
    @inline(__always)
    public func second(atNanos: UInt64) -> Int {
        atNanos <= runStartNanos ? 0 : Int((atNanos - runStartNanos) / 1_000_000_000)
    }

    func newMetricState() -> MetricState {
        MetricState(total: emptyTemplate, open: OpenInterval(template: emptyTemplate), openSecond: nil)
    }

    // MARK: - Recording (worker hot path)

    /// Records a latency sample into the metric's run total and into the interval of the second `atNanos` falls in.
    public mutating func record(_ metric: Metric, micros: Int64, atNanos: UInt64) {
        let second = second(atNanos: atNanos)
        let template = emptyTemplate
        let i = metrics.index(of: metric) {
            MetricState(total: template, open: OpenInterval(template: template), openSecond: nil)
        }
        metrics[i].recordSample(micros, second: second)
    }

    /// Adds `delta` to a counter's total and to its series at the second `atNanos` falls in.
    public mutating func count(_ counter: Metric, by delta: Int64 = 1, atNanos: UInt64) {
        let second = second(atNanos: atNanos)
        let i = counterStates.index(of: counter) { CounterState() }
        counterStates[i].add(delta, second: second)
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
        for i in 0..<metrics.count { metrics[i].seal() }
        for i in 0..<counterStates.count { counterStates[i].seal() }
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
        // Keys are process-wide (`MetricKeys`), so the other recorder's states are added by key, whatever
        // order either recorder first saw its metrics in.
        let template = emptyTemplate
        for j in 0..<other.metrics.count {
            let theirs = other.metrics[j]
            let metric = other.metrics.metric(at: j)
            let i = metrics.index(of: metric) {
            MetricState(total: template, open: OpenInterval(template: template), openSecond: nil)
        }
            metrics[i].total.add(theirs.total)
            metrics[i].sealedTotal = nil
            for (second, interval) in theirs.allIntervals {
                metrics[i].sealed[second] = metrics[i].sealed[second].map { $0.adding(interval) } ?? interval
            }
        }
        for j in 0..<other.counterStates.count {
            let theirs = other.counterStates[j]
            let i = counterStates.index(of: other.counterStates.metric(at: j)) { CounterState() }
            counterStates[i].total += theirs.total
            counterStates[i].perSecond.merge(theirs.allSeries, uniquingKeysWith: +)
        }
        for (name, theirs) in other.gauges {
            gauges[name, default: [:]].merge(theirs, uniquingKeysWith: +)
        }
    }

    // MARK: - Reading

    /// Run-total histogram per metric.
    public var histograms: [String: HdrHistogram] {
        metrics.byName(\.total)
    }

    /// One metric's run-total histogram, found by key (the live p99 each second), nil before its first sample.
    public func histogram(_ metric: Metric) -> HdrHistogram? {
        metrics.index(of: metric.key).map { metrics[$0].total }
    }

    /// Run-total histograms as windows (`HdrWindow`): for another thread, sharing no buffer the recorder writes.
    public var histogramWindows: [String: HdrWindow] {
        metrics.byName(\.total.window)
    }

    /// Counter totals.
    public var counters: [String: Int64] {
        counterStates.byName(\.total)
    }

    /// Interval histograms per metric per second, including the second still open.
    public var intervals: [String: [Int: SparseHistogram]] {
        metrics.byName(\.allIntervals)
    }

    public var metricNames: [String] { metrics.names.sorted() }
    public var counterNames: [String] { counterStates.names.sorted() }
    public var gaugeNames: [String] { gauges.keys.sorted() }

    /// Per-second summary of a metric, sorted by second; empty for an unknown metric.
    public func intervalStats(_ metric: String) -> [IntervalStat] {
        guard let state = metrics.state(named: metric) else { return [] }
        return state.allIntervals
            .sorted { $0.key < $1.key }
            .map { IntervalStat(second: $0.key, histogram: $0.value) }
    }

    /// Per-second sums of a counter, sorted by second; seconds without increments are absent.
    public func counterSeries(_ name: String) -> [(second: Int, value: Int64)] {
        (counterStates.state(named: name)?.allSeries ?? [:])
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
    /// Seals the second that is over before the sample reaches `total`: `seal` keeps `sealedTotal` only while
    /// `total` holds exactly its samples and the open second's, so a sample in `total` but not yet in `open`
    /// (the order before) made every seal and every checkpoint image scan the dense total's span instead (~1.1 M
    /// instructions per worker checkpoint in the SIP instructions bench).
    @inline(__always)
    mutating func recordSample(_ micros: Int64, second: Int) {
        if openSecond != second {
            seal()
            openSecond = second
        }
        total.record(micros)
        open.record(micros)
    }
}

extension Recorder.CounterState {
    @inline(__always)
    mutating func add(_ delta: Int64, second: Int) {
        total += delta
        if openSecond != second {
            seal()
            openSecond = second
        }
        openValue += delta
    }
}
