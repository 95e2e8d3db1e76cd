import Media
import XCTest

/// Streams put on a tick grid: every first send lands on it, never before the start-up asked for, and less than a
/// tick after; the 20 ms interval keeps every later send on it, so streams started apart share the timer's wakes.
final class SendGridTests: XCTestCase {
    func testFirstSendsLandOnTheGridNeverEarlyAndLessThanATickLate() {
        let grid = SendGrid(tickNanos: 1_000_000)
        for (now, asked) in [(UInt64(5_123_457), UInt64(0)), (7_000_000, 0), (9_999_999, 250_000_000),
                             (1, 1), (123_456_789_012, 40_000_001)] {
            let first = now + grid.sendAfter(now: now, asked: asked)
            XCTAssertEqual(first % 1_000_000, 0, "on the grid: \(now) + \(asked)")
            XCTAssertGreaterThanOrEqual(first, now + asked)
            XCTAssertLessThan(first, now + asked + 1_000_000)
        }
    }

    func testStreamsStartedApartShareEveryLaterTick() {
        let grid = SendGrid(tickNanos: 1_000_000)
        var a = SendSchedule(startNanos: 3_400_000 + grid.sendAfter(now: 3_400_000, asked: 0))
        var b = SendSchedule(startNanos: 21_900_001 + grid.sendAfter(now: 21_900_001, asked: 0))
        XCTAssertNotNil(a.take(now: 4_000_000))
        XCTAssertNil(b.take(now: 21_999_999))
        XCTAssertNotNil(a.take(now: 24_000_000))
        XCTAssertNotNil(b.take(now: 22_000_000))
        XCTAssertEqual(a.nextDue % 1_000_000, 0)
        XCTAssertEqual(b.nextDue % 1_000_000, 0)
        XCTAssertEqual(a.lag.maxNanos, 0, "sent on its plan: no lag")
    }

    func testAOneNanosecondGridMovesNothing() {
        let grid = SendGrid(tickNanos: 1)
        XCTAssertEqual(grid.sendAfter(now: 5_123_457, asked: 77), 77)
        XCTAssertEqual(grid.onGrid(5_123_457), 5_123_457)
    }
}
