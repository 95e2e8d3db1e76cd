/// One second of one latency metric, as the time-series chart and `timeseries.csv` show it.
public struct IntervalStat: Sendable, Equatable, Codable {
    /// Whole seconds since the run started.
    public var second: Int
    public var count: Int64
    public var p50: Int64
    public var p90: Int64
    public var p99: Int64
    public var max: Int64

    public init(second: Int, count: Int64, p50: Int64, p90: Int64, p99: Int64, max: Int64) {
        self.second = second
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }

    /// Summarises one sealed interval.
    public init(second: Int, histogram: SparseHistogram) {
        self.init(
            second: second,
            count: histogram.totalCount,
            p50: histogram.value(atPercentile: 50),
            p90: histogram.value(atPercentile: 90),
            p99: histogram.value(atPercentile: 99),
            max: histogram.max
        )
    }
}
