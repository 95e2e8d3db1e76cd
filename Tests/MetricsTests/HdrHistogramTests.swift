import Determinism
import Foundation
import XCTest
@testable import Metrics

final class HdrHistogramTests: XCTestCase {
    // MARK: - Helpers

    /// Nearest-rank percentile of a sorted array: the definition the histogram approximates.
    private func exactPercentile(_ sorted: [Int64], _ p: Double) -> Int64 {
        let rank = HdrHistogram.rank(ofPercentile: p, totalCount: Int64(sorted.count))
        return sorted[Int(rank) - 1]
    }

    /// Includes values such as 7, 29 and 57 whose `p / 100 * n` is not exact in binary.
    private static let percentiles: [Double] = [
        0, 0.1, 1, 7, 10, 25, 29, 50, 57, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100,
    ]

    private func assertPercentilesMatch(
        _ samples: [Int64], label: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        var histogram = HdrHistogram()
        for sample in samples { histogram.record(sample) }
        let sorted = samples.map { Swift.min(Swift.max($0, 0), histogram.highestTrackableValue) }.sorted()
        for p in Self.percentiles {
            let exact = exactPercentile(sorted, p)
            let reported = histogram.value(atPercentile: p)
            XCTAssertGreaterThanOrEqual(reported, exact, "\(label) p\(p)", file: file, line: line)
            XCTAssertLessThan(reported - exact, histogram.equivalentRangeSize(of: exact),
                              "\(label) p\(p): \(reported) vs exact \(exact)", file: file, line: line)
            XCTAssertLessThanOrEqual(Double(reported - exact), Double(exact) * 1e-3,
                                     "\(label) p\(p) relative error", file: file, line: line)
        }
        XCTAssertEqual(histogram.value(atPercentile: 100), sorted.last, "\(label) p100", file: file, line: line)
        XCTAssertEqual(histogram.value(atPercentile: 0), sorted.first, "\(label) p0", file: file, line: line)
        XCTAssertEqual(histogram.max, sorted.last, file: file, line: line)
        XCTAssertEqual(histogram.min, sorted.first, file: file, line: line)
        XCTAssertEqual(histogram.totalCount, Int64(samples.count), file: file, line: line)
        let exactMean = Double(sorted.reduce(0, +)) / Double(sorted.count)
        XCTAssertEqual(histogram.mean, exactMean, accuracy: exactMean * 1e-3 + 0.5, "\(label) mean",
                       file: file, line: line)
    }

    // MARK: - Percentiles

    func testPercentilesOfUniformSamplesStayWithinValueEquivalenceRange() {
        var rng = SeededRandom(splitMix: 1)
        let samples = (0..<20_000).map { _ in Int64.random(in: 1...5_000_000, using: &rng) }
        assertPercentilesMatch(samples, label: "uniform")
    }

    func testPercentilesOfLognormalSamplesStayWithinValueEquivalenceRange() {
        var rng = SeededRandom(splitMix: 2)
        let samples = (0..<20_000).map { _ -> Int64 in
            // Box–Muller normal, median 50 ms, sigma 1.2: a long latency tail.
            let u1 = Swift.max(rng.nextUnit(), 1e-12), u2 = rng.nextUnit()
            let normal = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
            return Int64(50_000 * exp(1.2 * normal))
        }
        assertPercentilesMatch(samples, label: "lognormal")
    }

    func testPercentilesOfExponentialAndParetoSamplesStayWithinValueEquivalenceRange() {
        var rng = SeededRandom(splitMix: 3)
        let exponential = (0..<10_000).map { _ in Int64(-log(Swift.max(rng.nextUnit(), 1e-12)) * 200_000) }
        assertPercentilesMatch(exponential, label: "exponential")
        let pareto = (0..<10_000).map { _ in Int64(1_000 / pow(Swift.max(rng.nextUnit(), 1e-12), 1 / 1.5)) }
        assertPercentilesMatch(pareto, label: "pareto")
    }

    func testPercentilesOfSmallValuesAreExact() {
        var rng = SeededRandom(splitMix: 4)
        let samples = (0..<5_000).map { _ in Int64.random(in: 0...2_000, using: &rng) }
        var histogram = HdrHistogram()
        for sample in samples { histogram.record(sample) }
        let sorted = samples.sorted()
        for p in Self.percentiles {
            XCTAssertEqual(histogram.value(atPercentile: p), exactPercentile(sorted, p), "p\(p)")
        }
    }

    func testPercentileNeverExceedsMaxOrFallsBelowMin() {
        var histogram = HdrHistogram()
        histogram.record(1_000_001)
        histogram.record(1_000_003)
        // Both share one slot whose highest equivalent value is above the max.
        XCTAssertGreaterThan(histogram.equivalentRangeSize(of: 1_000_001), 2)
        for p in Self.percentiles {
            let value = histogram.value(atPercentile: p)
            XCTAssertLessThanOrEqual(value, 1_000_003, "p\(p)")
            XCTAssertGreaterThanOrEqual(value, 1_000_001, "p\(p)")
        }
        XCTAssertEqual(histogram.value(atPercentile: 100), 1_000_003)
        XCTAssertEqual(histogram.value(atPercentile: 0), 1_000_001)
    }

    func testSingleSampleReportsItsValueEverywhere() {
        var histogram = HdrHistogram()
        histogram.record(123_456_789)
        for p in Self.percentiles { XCTAssertEqual(histogram.value(atPercentile: p), 123_456_789) }
        XCTAssertEqual(histogram.mean, 123_456_789)
        XCTAssertEqual(histogram.standardDeviation, 0)
    }

    // MARK: - Empty, clamping, counts

    func testEmptyHistogramReportsZeros() {
        let histogram = HdrHistogram()
        XCTAssertEqual(histogram.totalCount, 0)
        XCTAssertEqual(histogram.min, 0)
        XCTAssertEqual(histogram.max, 0)
        XCTAssertEqual(histogram.mean, 0)
        XCTAssertEqual(histogram.standardDeviation, 0)
        XCTAssertEqual(histogram.value(atPercentile: 50), 0)
        XCTAssertEqual(histogram.value(atPercentile: 100), 0)
        XCTAssertEqual(histogram.percentileDistribution(), [])
        XCTAssertTrue(histogram.sparse.isEmpty)
    }

    func testValuesAboveHighestAreClampedAndCountedAsOverflow() {
        var histogram = HdrHistogram(highestTrackableValue: 1_000_000)
        histogram.record(5_000_000)
        histogram.record(2_000_000, count: 3)
        histogram.record(10)
        XCTAssertEqual(histogram.overflowCount, 4)
        XCTAssertEqual(histogram.totalCount, 5)
        XCTAssertEqual(histogram.max, 1_000_000)
        XCTAssertEqual(histogram.value(atPercentile: 100), 1_000_000)
        XCTAssertEqual(histogram.value(atPercentile: 50), 1_000_000)
    }

    func testNegativeValuesAreRecordedAsZero() {
        var histogram = HdrHistogram()
        histogram.record(-42)
        histogram.record(7)
        XCTAssertEqual(histogram.min, 0)
        XCTAssertEqual(histogram.value(atPercentile: 0), 0)
        XCTAssertEqual(histogram.totalCount, 2)
    }

    func testHugeCountsKeepPercentilesAndTotals() {
        var histogram = HdrHistogram()
        let huge: Int64 = 1 << 52
        histogram.record(1_000, count: huge)
        histogram.record(2_000_000, count: huge)
        histogram.record(3_000_000_000, count: 2)
        XCTAssertEqual(histogram.totalCount, 2 * huge + 2)
        XCTAssertEqual(histogram.value(atPercentile: 25), 1_000)
        // Half of 2^53 + 2 samples is 2^52 + 1: one past the last sample of the first value.
        XCTAssertEqual(histogram.value(atPercentile: 49.99), 1_000)
        let p50 = histogram.value(atPercentile: 50)
        XCTAssertTrue((2_000_000...2_000_000 + histogram.equivalentRangeSize(of: 2_000_000)).contains(p50))
        let p75 = histogram.value(atPercentile: 75)
        XCTAssertTrue((2_000_000...2_000_000 + histogram.equivalentRangeSize(of: 2_000_000)).contains(p75))
        XCTAssertEqual(histogram.value(atPercentile: 100), 3_000_000_000)
        XCTAssertEqual(histogram.mean, (1_000 + 2_000_000) / 2, accuracy: 2_000)
        let round = HdrHistogram(histogram.sparse)
        XCTAssertEqual(round, histogram)
    }

    func testRecordWithCountEqualsRepeatedRecord() {
        var repeated = HdrHistogram()
        var counted = HdrHistogram()
        for _ in 0..<17 { repeated.record(4_321) }
        counted.record(4_321, count: 17)
        counted.record(99, count: 0)
        XCTAssertEqual(repeated, counted)
    }

    // MARK: - Add, reset, sparse

    func testAddEqualsRecordingAllSamplesIntoOne() {
        var rng = SeededRandom(splitMix: 5)
        var all = HdrHistogram()
        var parts = [HdrHistogram](repeating: HdrHistogram(), count: 3)
        for index in 0..<9_000 {
            let value = Int64.random(in: 0...50_000_000, using: &rng)
            all.record(value)
            parts[index % 3].record(value)
        }
        var merged = HdrHistogram()
        for part in parts { merged.add(part) }
        XCTAssertEqual(merged, all)
        var viaSparse = HdrHistogram()
        for part in parts { viaSparse.add(part.sparse) }
        XCTAssertEqual(viaSparse, all)
        let sparseSum = parts.map(\.sparse).reduce(SparseHistogram(), { $0.adding($1) })
        XCTAssertEqual(sparseSum, all.sparse)
    }

    /// The scan skips empty slots eight at a time: every non-zero slot is still visited once, in order, whatever
    /// the span's length and where the samples fall against the eight-slot groups, and a `false` stops it.
    func testNonZeroSlotsAreVisitedInOrderAcrossRunsOfEmptySlots() {
        for (first, gaps) in [(1, [0]), (5, [1, 7, 8, 9]), (100, [15, 16, 17, 3, 64]), (2_049, [2_000, 1, 8])] {
            var histogram = HdrHistogram()
            var value = Int64(first)
            histogram.record(value)
            for gap in gaps {
                value += Int64(gap + 1)
                histogram.record(value, count: Int64(gap + 2))
            }
            var expected: [(Int, Int64)] = []
            for (index, count) in histogram.counts.enumerated() where count != 0 { expected.append((index, count)) }
            var seen: [(Int, Int64)] = []
            histogram.forEachNonZero { index, count in
                seen.append((index, count))
                return true
            }
            XCTAssertEqual(seen.map(\.0), expected.map(\.0), "first \(first), gaps \(gaps)")
            XCTAssertEqual(seen.map(\.1), expected.map(\.1), "first \(first), gaps \(gaps)")
            var visited = 0
            histogram.forEachNonZero { _, _ in
                visited += 1
                return visited < 2
            }
            XCTAssertEqual(visited, min(2, expected.count))
        }
    }

    func testSparseRoundTripPreservesEverything() throws {
        var rng = SeededRandom(splitMix: 6)
        var histogram = HdrHistogram(highestTrackableValue: 10_000_000)
        for _ in 0..<2_000 { histogram.record(Int64.random(in: 0...20_000_000, using: &rng)) }
        let sparse = histogram.sparse
        XCTAssertLessThan(sparse.indices.count, 2_000)
        XCTAssertEqual(HdrHistogram(sparse), histogram)
        XCTAssertEqual(sparse.value(atPercentile: 99), histogram.value(atPercentile: 99))
        XCTAssertEqual(sparse.mean, histogram.mean)
        XCTAssertEqual(sparse.overflowCount, histogram.overflowCount)

        let data = try JSONEncoder().encode(histogram)
        XCTAssertEqual(try JSONDecoder().decode(HdrHistogram.self, from: data), histogram)
        XCTAssertEqual(try JSONDecoder().decode(SparseHistogram.self, from: try JSONEncoder().encode(sparse)), sparse)
    }

    func testDecodingCorruptSparseHistogramThrows() {
        let json = """
        {"lowestDiscernibleValue":1,"highestTrackableValue":1000,"significantDigits":3,
         "indices":[5,3],"counts":[1,1],"totalCount":2,"overflowCount":0,"min":3,"max":5}
        """
        XCTAssertThrowsError(try JSONDecoder().decode(SparseHistogram.self, from: Data(json.utf8)))
        let badConfig = """
        {"lowestDiscernibleValue":0,"highestTrackableValue":1000,"significantDigits":3,
         "indices":[],"counts":[],"totalCount":0,"overflowCount":0,"min":0,"max":0}
        """
        XCTAssertThrowsError(try JSONDecoder().decode(SparseHistogram.self, from: Data(badConfig.utf8)))
    }

    func testResetAndTakeSparseLeaveAnEmptyHistogram() {
        var histogram = HdrHistogram()
        for value: Int64 in [3, 70_000, 9_999_999] { histogram.record(value) }
        let taken = histogram.takeSparse()
        XCTAssertEqual(taken.totalCount, 3)
        XCTAssertEqual(histogram, HdrHistogram())
        histogram.record(5)
        histogram.reset()
        XCTAssertEqual(histogram, HdrHistogram())
    }

    // MARK: - Percentile distribution

    func testPercentileDistributionIsMonotonicAndEndsAtMax() {
        var rng = SeededRandom(splitMix: 7)
        var histogram = HdrHistogram()
        for _ in 0..<10_000 { histogram.record(Int64.random(in: 100...1_000_000, using: &rng)) }
        let points = histogram.percentileDistribution(ticksPerHalfDistance: 5)
        XCTAssertGreaterThan(points.count, 20)
        XCTAssertEqual(points.first?.percentile, 0)
        XCTAssertEqual(points.last?.percentile, 100)
        XCTAssertEqual(points.last?.value, histogram.max)
        XCTAssertEqual(points.last?.totalCountToHere, histogram.totalCount)
        for (previous, next) in zip(points, points.dropFirst()) {
            XCTAssertLessThanOrEqual(previous.value, next.value)
            XCTAssertLessThanOrEqual(previous.percentile, next.percentile)
            XCTAssertLessThanOrEqual(previous.totalCountToHere, next.totalCountToHere)
        }
        // Five ticks per half distance: 0, 10, 20, 30, 40, 50, then 55, 60, ...
        XCTAssertEqual(points.prefix(8).map(\.percentile), [0, 10, 20, 30, 40, 50, 55, 60])
        // Past 98.4375 % the step is 100 / 640.
        XCTAssertTrue(points.contains { abs($0.percentile - 99.0625) < 1e-9 })
        XCTAssertTrue(points.contains { abs($0.percentile - 99.21875) < 1e-9 })
    }
}
