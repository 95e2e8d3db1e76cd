import Media
import XCTest

final class SendScheduleTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    func testEachSendIsPlannedFromTheStartAndItsLagMeasured() {
        var s = SendSchedule(startNanos: 0)
        XCTAssertEqual(s.take(now: 0), .init(index: 0, plannedNanos: 0, lagNanos: 0))
        XCTAssertNil(s.take(now: 0))
        XCTAssertNil(s.take(now: 19 * ms))
        // Late by 5 ms: the plan does not move.
        XCTAssertEqual(s.take(now: 25 * ms), .init(index: 1, plannedNanos: 20 * ms, lagNanos: 5 * ms))
        XCTAssertEqual(s.nextDue, 40 * ms)
        // A stalled loop at 65 ms owes two packets: sent at once, each with its lag.
        XCTAssertEqual(s.take(now: 65 * ms), .init(index: 2, plannedNanos: 40 * ms, lagNanos: 25 * ms))
        XCTAssertEqual(s.take(now: 65 * ms), .init(index: 3, plannedNanos: 60 * ms, lagNanos: 5 * ms))
        XCTAssertNil(s.take(now: 65 * ms))
        XCTAssertEqual(s.lag.count, 4)
        XCTAssertEqual(s.lag.maxNanos, 25 * ms)
        XCTAssertEqual(s.lag.totalNanos, 35 * ms)
        // Buckets: 0 → ≤50 µs; 5 ms, 5 ms → ≤5 ms; 25 ms → above 20 ms.
        XCTAssertEqual(s.lag.upperBoundNanos(atQuantile: 0.25), 50_000)
        XCTAssertEqual(s.lag.upperBoundNanos(atQuantile: 0.75), 5 * ms)
        XCTAssertEqual(s.lag.upperBoundNanos(atQuantile: 0.99), 25 * ms)
    }

    func testSkippingAHoldKeepsTheClockRunning() {
        var s = SendSchedule(startNanos: 1_000 * ms)
        _ = s.take(now: 1_000 * ms)
        s.skip(to: 1_130 * ms)
        XCTAssertEqual(s.nextIndex, 7)
        XCTAssertEqual(s.nextDue, 1_140 * ms)
        s.skip(to: 1_000 * ms)
        XCTAssertEqual(s.nextIndex, 7, "never backwards")
    }
}
