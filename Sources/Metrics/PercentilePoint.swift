/// One step of a percentile distribution, as HdrHistogram's percentile output prints it.
///
/// The report plots these on a log axis of `1 / (1 - percentile)` so the tail (99 %, 99.9 %, …) gets as much
/// room as the median.
public struct PercentilePoint: Sendable, Equatable, Codable {
    /// Highest value equivalent to the sample at this percentile, never above the recorded maximum.
    public var value: Int64
    /// Percentile in 0...100.
    public var percentile: Double
    /// Samples at or below `value`.
    public var totalCountToHere: Int64

    public init(value: Int64, percentile: Double, totalCountToHere: Int64) {
        self.value = value
        self.percentile = percentile
        self.totalCountToHere = totalCountToHere
    }

    /// `1 / (1 - percentile / 100)`: the x coordinate of HdrHistogram's plots; infinite at 100 %.
    public var inverseTail: Double {
        1 / (1 - percentile / 100)
    }
}
