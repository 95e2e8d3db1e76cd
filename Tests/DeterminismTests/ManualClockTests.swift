import Determinism
import XCTest

/// XCTest, not Swift Testing: `make test` runs XCTest only (`--disable-swift-testing`).
final class ManualClockTests: XCTestCase {
    func testStartsAtOneSecondAndMovesOnlyWhenAdvanced() {
        let clock = ManualClock()
        XCTAssertEqual(clock.nowNanos(), 1_000_000_000)
        XCTAssertEqual(clock.nowNanos(), 1_000_000_000)
        clock.advance(by: 250)
        XCTAssertEqual(clock.nowNanos(), 1_000_000_250)
    }

    func testSetPutsTheClockAtTheGivenInstant() {
        let clock = ManualClock(startNanos: 5)
        clock.set(42)
        XCTAssertEqual(clock.nowNanos(), 42)
    }

    func testMonotonicClockNeverGoesBack() {
        let clock = MonotonicClock()
        let first = clock.nowNanos()
        XCTAssertGreaterThanOrEqual(clock.nowNanos(), first)
    }
}
