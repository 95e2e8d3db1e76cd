import CLinux
@testable import SIPClient
import XCTest

/// `device.coalesce`: after each read of the shared socket, whether it is read again at once, watched again, or
/// left alone for a window (times are given, not read: the decision is a function of the read and the instant).
final class SharedReadWindowTests: XCTestCase {
    func testAShortReadWaitsTheWindowFromTheInstantOfTheRead() {
        let window = SharedReadWindow(nanos: 300_000)
        XCTAssertEqual(window.step(afterReading: 1, capacity: 32, now: 5_000_000), .wait(until: 5_300_000))
        XCTAssertEqual(window.step(afterReading: 15, capacity: 32, now: 7), .wait(until: 300_007))
    }

    func testAFullReadReadsAgainAtOnceWindowOrNot() {
        XCTAssertEqual(SharedReadWindow(nanos: 300_000).step(afterReading: 32, capacity: 32, now: 1), .readAgain)
        XCTAssertEqual(SharedReadWindow(nanos: 0).step(afterReading: 32, capacity: 32, now: 1), .readAgain)
    }

    func testADrainedSocketOrABigReadIsWatchedAgain() {
        let window = SharedReadWindow(nanos: 300_000)
        XCTAssertEqual(window.step(afterReading: 0, capacity: 32, now: 1), .watch)
        XCTAssertEqual(window.step(afterReading: 16, capacity: 32, now: 1), .watch)
        XCTAssertEqual(window.step(afterReading: 31, capacity: 32, now: 1), .watch)
    }

    func testAWindowOfZeroNeverWaits() {
        let window = SharedReadWindow(nanos: 0)
        for count in 0..<32 { XCTAssertEqual(window.step(afterReading: count, capacity: 32, now: 1), .watch) }
    }

    func testTheInterestIsOneShotWhileWindowsAreOnSoAWindowCostsOneEpollCtl() {
        XCTAssertEqual(SharedReadWindow(nanos: 300_000).interest, CLINUX_EPOLLIN | SharedReadWindow.epollOneShot)
        XCTAssertEqual(SharedReadWindow(nanos: 0).interest, CLINUX_EPOLLIN, "without windows every read watches on")
    }

    func testTheThresholdIsHalfTheBatchAndAtLeastOne() {
        XCTAssertEqual(SharedReadWindow.threshold(32), 16)
        XCTAssertEqual(SharedReadWindow.threshold(1), 1)
        XCTAssertEqual(SharedReadWindow(nanos: 10).step(afterReading: 0, capacity: 1, now: 0), .watch)
    }
}
