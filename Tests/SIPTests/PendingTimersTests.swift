@testable import SIP
import XCTest

/// A transaction's timers kept in four inline slots (`PendingTimers`) behave as the list they replaced: due ones
/// come out earliest first, equals in the order they were set, and a timer set again moves to the end.
final class PendingTimersTests: XCTestCase {
    func testDueTimersComeOutEarliestFirstAndEqualsInTheOrderSet() {
        var timers = PendingTimers()
        timers.set(.b, at: 30)
        timers.set(.a, at: 10)
        timers.set(.d, at: 10)
        XCTAssertEqual(timers.next, 10)
        XCTAssertNil(timers.popDue(9))
        XCTAssertEqual(timers.popDue(30), .a)
        XCTAssertEqual(timers.popDue(30), .d)
        XCTAssertEqual(timers.popDue(30), .b)
        XCTAssertNil(timers.popDue(100))
        XCTAssertNil(timers.next)
    }

    func testATimerSetAgainReplacesItsDeadlineAndCancelLeavesTheOthers() {
        var timers = PendingTimers()
        timers.set(.g, at: 10)
        timers.set(.l, at: 10)
        timers.set(.g, at: 10)
        XCTAssertEqual(timers.popDue(10), .l, "G set again went after L")
        timers.set(.g, at: 50)
        XCTAssertEqual(timers.next, 50)
        timers.set(.h, at: 40)
        timers.cancel(.h)
        XCTAssertEqual(timers.next, 50)
        var same = PendingTimers()
        same.set(.g, at: 50)
        XCTAssertEqual(timers, same)
        timers.cancelAll()
        XCTAssertNil(timers.next)
        XCTAssertNotEqual(timers, same)
    }
}
