@testable import Metrics
import XCTest

/// The window a worker publishes each second: the same histogram as the sparse form, sharing nothing.
final class HdrWindowTests: XCTestCase {
    func testWindowReducesToTheSameSparseHistogramAndSharesNoBuffer() {
        var histogram = HdrHistogram()
        for value: Int64 in [3, 250, 250, 9_000, 1_200_000, 5_000_000_000] { histogram.record(value) }
        let window = histogram.window
        XCTAssertEqual(window.sparse, histogram.sparse)
        XCTAssertLessThan(window.counts.count, histogram.counts.count, "only the slots between the extremes")
        histogram.record(40)
        XCTAssertEqual(window.sparse.totalCount, 6, "a record after the hand-over does not reach the window")
        XCTAssertEqual(HdrHistogram().window.sparse, HdrHistogram().sparse, "empty")
    }
}
