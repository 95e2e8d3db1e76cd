// MARK: - Codable

/// A recorder is written to the results bundle so shards can be merged later. Intervals are written sealed
/// (open seconds included), so a decoded recorder reads the same as the one that was encoded.
extension Recorder: Codable {
    private enum CodingKeys: String, CodingKey {
        case runStartNanos, lowestDiscernibleValue, highestTrackableValue, significantDigits
        case histograms, intervals, counters, counterSeries, gauges
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let lowest = try container.decode(Int64.self, forKey: .lowestDiscernibleValue)
        let highest = try container.decode(Int64.self, forKey: .highestTrackableValue)
        let digits = try container.decode(Int.self, forKey: .significantDigits)
        if let problem = HdrLayout.validationProblem(lowest: lowest, highest: highest, significantDigits: digits) {
            throw DecodingError.dataCorruptedError(
                forKey: .significantDigits, in: container, debugDescription: "Recorder: \(problem)")
        }
        self.init(
            runStartNanos: try container.decode(UInt64.self, forKey: .runStartNanos),
            lowestDiscernibleValue: lowest, highestTrackableValue: highest, significantDigits: digits
        )
        // Decoded sparse: a segment's totals are empty, and a dense histogram per metric per segment would
        // cost ~190 kB each when a long run's segments are read back.
        let totals = try container.decode([String: SparseHistogram].self, forKey: .histograms)
        let intervals = try container.decode([String: [Int: SparseHistogram]].self, forKey: .intervals)
        switch assemble(totals: totals, intervals: intervals) {
        case nil: break
        case .histogram(let name)?:
            throw DecodingError.dataCorruptedError(
                forKey: .histograms, in: container,
                debugDescription: "Recorder: histogram '\(name)' has a different configuration than the recorder")
        case .interval(let name, let second)?:
            throw DecodingError.dataCorruptedError(
                forKey: .intervals, in: container,
                debugDescription: "Recorder: interval \(second) of '\(name)' has a different configuration")
        }
        let totalsByCounter = try container.decode([String: Int64].self, forKey: .counters)
        let series = try container.decode([String: [Int: Int64]].self, forKey: .counterSeries)
        assemble(counters: totalsByCounter, series: series)
        gauges = try container.decode([String: [Int: Double]].self, forKey: .gauges)
    }

    /// A decoded part whose histogram configuration differs from the recorder's.
    enum AssemblyProblem {
        case histogram(String)
        case interval(String, Int)
    }

    /// Fills a new recorder's histograms from decoded parts (`init(from:)` and `readWritten`), nil when every
    /// part fits.
    mutating func assemble(totals: [String: SparseHistogram], intervals: [String: [Int: SparseHistogram]])
        -> AssemblyProblem? {
        for (name, total) in totals {
            guard total.layout == emptyTemplate.layout else { return .histogram(name) }
            var state = newMetricState()
            if !total.isEmpty { state.total = HdrHistogram(total) }
            for (second, interval) in intervals[name] ?? [:] {
                guard interval.layout == emptyTemplate.layout else { return .interval(name, second) }
                state.sealed[second] = interval
            }
            metrics.set(name, state)
        }
        return nil
    }

    mutating func assemble(counters: [String: Int64], series: [String: [Int: Int64]]) {
        for (name, total) in counters {
            counterStates.set(name, CounterState(total: total, perSecond: series[name] ?? [:]))
        }
    }

    public func encode(to encoder: Encoder) throws {
        try image.encode(to: encoder)
    }
}

// MARK: - Equatable

/// Two recorders are equal when every reading agrees: whether a second is still open or already sealed is an
/// implementation detail, so `merge` results compare equal to a recorder fed all samples directly.
extension Recorder: Equatable {
    public static func == (lhs: Recorder, rhs: Recorder) -> Bool {
        lhs.runStartNanos == rhs.runStartNanos
            && lhs.emptyTemplate.layout == rhs.emptyTemplate.layout
            && lhs.histograms == rhs.histograms
            && lhs.intervals == rhs.intervals
            && lhs.counterStates.byName({ $0 }) == rhs.counterStates.byName({ $0 })
            && lhs.gauges == rhs.gauges
    }
}
