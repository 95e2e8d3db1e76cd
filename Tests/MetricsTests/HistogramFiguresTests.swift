import XCTest
@testable import Metrics

/// `figures(atPercentiles:)` reads in one walk exactly what `value(atPercentile:)` and `mean` read with a walk each:
/// the report's summary.csv, summary.json and report.html depend on the values being the same to the bit.
final class HistogramFiguresTests: XCTestCase {
    /// Percentiles in any order, repeated, at and beyond the ends, NaN, and ranks that fall in the same slot.
    private let asked: [Double] = [99.9, 50, 90, 99, 0, 100, -1, 101, .nan, 50, 0.001, 7, 99.99999, 33.3]

    private func histograms() -> [HdrHistogram] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D  // xorshift: the same samples every run
        var out: [HdrHistogram] = [HdrHistogram()]
        var one = HdrHistogram()
        one.record(4_321)
        out.append(one)
        for samples in [2, 10, 1_000, 20_000] {
            var h = HdrHistogram()
            for _ in 0..<samples {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                h.record(Int64(state % 3_600_000))
            }
            h.record(17, count: Int64(samples))
            out.append(h)
        }
        return out
    }

    func testOneWalkGivesEachPercentileAndTheMeanAsTheirOwnWalksDo() {
        for h in histograms() {
            let figures = h.figures(atPercentiles: asked)
            XCTAssertEqual(figures.values, asked.map { h.value(atPercentile: $0) }, "\(h.totalCount) samples")
            XCTAssertEqual(figures.mean.bitPattern, h.mean.bitPattern, "\(h.totalCount) samples")
            let sparse = h.sparse
            let fromSparse = sparse.figures(atPercentiles: asked)
            XCTAssertEqual(fromSparse.values, asked.map { sparse.value(atPercentile: $0) })
            XCTAssertEqual(fromSparse.mean.bitPattern, sparse.mean.bitPattern)
        }
    }

    func testNoPercentilesAskedStillGivesTheMean() {
        var h = HdrHistogram()
        h.record(10)
        h.record(30)
        let figures = h.figures(atPercentiles: [])
        XCTAssertEqual(figures.values, [])
        XCTAssertEqual(figures.mean, h.mean)
    }
}
