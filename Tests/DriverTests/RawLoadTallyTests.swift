import Driver
import Metrics
import XCTest

/// What a raw-http worker counts (`RawLoadTally`), shared by the libcurl and HTTPWire loops, and its sum.
final class RawLoadTallyTests: XCTestCase {
    func testA2xxCountsWithItsLatencyAndOtherStatusesAndErrorsApart() {
        var tally = RawLoadTally()
        tally.response(status: 200, sentNanos: 1_000_000, nowNanos: 3_500_000)
        tally.response(status: 204, sentNanos: 0, nowNanos: 1_000_000)
        tally.response(status: 503, sentNanos: 0, nowNanos: 9_000_000)
        tally.error("timeout")
        tally.error("timeout")
        XCTAssertEqual(tally.succeeded, 2)
        XCTAssertEqual(tally.otherStatus, 1)
        XCTAssertEqual(tally.errors, ["timeout": 2])
        XCTAssertEqual(tally.latency.totalCount, 2)
        XCTAssertEqual(Double(tally.latency.max), 2_500, accuracy: 3)
    }

    func testTheResultSumsEveryWorkersTally() {
        var result = RawHTTPLoad.Result(elapsedSeconds: 2)
        var a = RawLoadTally()
        a.response(status: 200, sentNanos: 0, nowNanos: 1_000)
        a.error("refused")
        var b = RawLoadTally()
        b.response(status: 200, sentNanos: 0, nowNanos: 2_000)
        b.response(status: 404, sentNanos: 0, nowNanos: 2_000)
        b.error("refused")
        result.add(a)
        result.add(b)
        XCTAssertEqual(result.succeeded, 2)
        XCTAssertEqual(result.otherStatus, 1)
        XCTAssertEqual(result.errors, ["refused": 2])
        XCTAssertEqual(result.latency.totalCount, 2)
        XCTAssertEqual(result.requestsPerSecond, 1)
    }
}
