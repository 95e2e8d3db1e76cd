/// What the statistics below need from a histogram, dense or sparse: one implementation for both, so the
/// per-second figures computed from sparse intervals cannot drift from the run totals.
protocol HdrStatistics {
    var layout: HdrLayout { get }
    var totalCount: Int64 { get }
    var min: Int64 { get }
    var max: Int64 { get }
    /// Visits non-zero slots in ascending index order until `body` returns false.
    func forEachNonZero(_ body: (_ index: Int, _ count: Int64) -> Bool)
}

extension HdrStatistics {
    /// Nearest-rank position (1-based) of the sample at percentile `p`, tolerant of binary rounding such as
    /// `0.07 * 100 == 7.000000000000001`, which would otherwise push the rank one sample too far.
    static func rank(ofPercentile p: Double, totalCount: Int64) -> Int64 {
        let clamped = Swift.min(Swift.max(p, 0), 100)
        let exact = clamped / 100 * Double(totalCount)
        let nearest = exact.rounded()
        let rank = abs(exact - nearest) <= 1e-9 * Swift.max(1, exact) ? nearest : exact.rounded(.up)
        return Swift.min(Swift.max(Int64(rank), 1), totalCount)
    }

    func computeValue(atPercentile p: Double) -> Int64 {
        guard totalCount > 0 else { return 0 }
        if p <= 0 || p.isNaN { return min }
        if p >= 100 { return max }
        let target = Self.rank(ofPercentile: p, totalCount: totalCount)
        var cumulative: Int64 = 0
        var found = max
        forEachNonZero { index, count in
            cumulative += count
            if cumulative >= target {
                found = layout.highestEquivalentValue(atIndex: index)
                return false
            }
            return true
        }
        return Swift.min(Swift.max(found, min), max)
    }

    /// `computeValue(atPercentile:)` of each of `percentiles` and `computeMean()`, the same values, from one walk
    /// of the slots: the report read four percentiles and the mean of each histogram with a walk each, three
    /// times over (summary.csv, summary.json, report.html), ~65,000 instructions per SIP call (issue 33).
    func computeFigures(atPercentiles percentiles: [Double]) -> HistogramFigures {
        guard totalCount > 0 else {
            return HistogramFigures(values: Array(repeating: 0, count: percentiles.count), mean: 0)
        }
        var values = percentiles.map { p -> Int64 in p <= 0 || p.isNaN ? min : max }
        // Ranks of the percentiles inside (0, 100), walked in ascending order; the others are min or max above.
        var pending: [(rank: Int64, at: Int)] = []
        for (at, p) in percentiles.enumerated() where p > 0 && p < 100 {
            pending.append((Self.rank(ofPercentile: p, totalCount: totalCount), at))
        }
        pending.sort { $0.rank != $1.rank ? $0.rank < $1.rank : $0.at < $1.at }
        var next = 0
        var cumulative: Int64 = 0
        var sum = 0.0
        forEachNonZero { index, count in
            cumulative += count
            while next < pending.count, cumulative >= pending[next].rank {
                values[pending[next].at] = layout.highestEquivalentValue(atIndex: index)
                next += 1
            }
            sum += representative(atIndex: index) * Double(count)
            return true
        }
        for (_, at) in pending { values[at] = Swift.min(Swift.max(values[at], min), max) }
        return HistogramFigures(values: values, mean: sum / Double(totalCount))
    }

    /// Slot representative clamped to the exact extremes, so a histogram holding one value reports it exactly.
    private func representative(atIndex index: Int) -> Double {
        Double(Swift.min(Swift.max(layout.medianEquivalentValue(atIndex: index), min), max))
    }

    func computeMean() -> Double {
        guard totalCount > 0 else { return 0 }
        var sum = 0.0
        forEachNonZero { index, count in
            sum += representative(atIndex: index) * Double(count)
            return true
        }
        return sum / Double(totalCount)
    }

    func computeStandardDeviation() -> Double {
        guard totalCount > 0 else { return 0 }
        let mean = computeMean()
        var squares = 0.0
        forEachNonZero { index, count in
            let deviation = representative(atIndex: index) - mean
            squares += deviation * deviation * Double(count)
            return true
        }
        return (squares / Double(totalCount)).squareRoot()
    }

    /// HdrHistogram's percentile iteration: `ticksPerHalfDistance` points between each halving of the distance
    /// to 100 %, then a final point at 100 % holding the maximum.
    func computePercentileDistribution(ticksPerHalfDistance: Int) -> [PercentilePoint] {
        guard totalCount > 0 else { return [] }
        let ticks = Double(Swift.max(ticksPerHalfDistance, 1))
        var points: [PercentilePoint] = []
        var level = 0.0
        var cumulative: Int64 = 0
        let total = Double(totalCount)
        forEachNonZero { index, count in
            cumulative += count
            let reached = 100 * Double(cumulative) / total
            let value = Swift.min(Swift.max(layout.highestEquivalentValue(atIndex: index), min), max)
            while reached >= level && level < 100 {
                points.append(PercentilePoint(value: value, percentile: level, totalCountToHere: cumulative))
                if cumulative == totalCount { return false }
                let halvings = (100 / (100 - level)).log2Floor
                let next = level + 100 / (ticks * Double(Int64(1) << Int64(Swift.min(halvings + 1, 60))))
                guard next > level else { return false }
                level = next
            }
            return true
        }
        points.append(PercentilePoint(value: max, percentile: 100, totalCountToHere: totalCount))
        return points
    }
}

extension Double {
    /// floor(log2(self)) for self >= 1, exact and without libm.
    fileprivate var log2Floor: Int {
        Swift.max(Int(exponent), 0)
    }
}

/// Values at percentiles and the mean of one histogram, read in one walk (`figures(atPercentiles:)`).
public struct HistogramFigures: Sendable, Equatable {
    /// In the order the percentiles were asked for.
    public let values: [Int64]
    public let mean: Double
}
