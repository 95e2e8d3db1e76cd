import Determinism
import Synchronization
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

    func testEveryMoveWakesTheRegisteredLoopsUntilTheyStop() {
        let clock = ManualClock()
        let wakes = Atomic<Int>(0)
        let token = clock.wakeOnMove { wakes.add(1, ordering: .relaxed) }
        XCTAssertNotNil(token)
        clock.advance(by: 1)
        clock.advance(to: 5_000_000_000)
        clock.set(7)
        XCTAssertEqual(wakes.load(ordering: .relaxed), 3)
        clock.stopWaking(token!)
        clock.advance(by: 1)
        XCTAssertEqual(wakes.load(ordering: .relaxed), 3)
    }

    func testTheRealClockKeepsNoWaker() {
        XCTAssertNil(MonotonicClock().wakeOnMove {})
    }
}
