@testable import EventPolling
import XCTest

/// The timer table an `EventThread` waits on: what is due, in what order, and what an action may change while
/// the thread runs the due ones. Virtual time: `now` is a number the test picks.
final class EventTimerTableTests: XCTestCase {
    func testATimerIsDueAtItsDeadlineNotANanosecondBefore() {
        var table = EventTimerTable()
        let slot = table.add {}
        table.arm(slot, at: 1_000_500)
        XCTAssertEqual(table.earliest, 1_000_500)
        XCTAssertNil(table.takeIfDue(slot, now: 1_000_499))
        XCTAssertNotNil(table.takeIfDue(slot, now: 1_000_500))
        XCTAssertNil(table.takeIfDue(slot, now: 2_000_000), "one shot: taken once")
        XCTAssertEqual(table.earliest, EventTimerTable.never)
        XCTAssertEqual(table.armedCount, 0)
    }

    func testDueTimersComeEarliestDeadlineFirstAndTheEarliestIsTheSmallestArmed() {
        var table = EventTimerTable()
        let a = table.add {}, b = table.add {}, c = table.add {}, d = table.add {}
        table.arm(a, at: 900)
        table.arm(b, at: 300)
        table.arm(c, at: 600)
        table.arm(d, at: 5_000)
        XCTAssertEqual(table.earliest, 300)
        var due: [Int] = []
        table.collectDue(now: 1_000, into: &due)
        XCTAssertEqual(due, [b, c, a])
    }

    func testArmReplacesTheDeadlineAndDisarmOrRemoveMeansNeverAndSlotsAreReused() {
        var table = EventTimerTable()
        let a = table.add {}
        table.arm(a, at: 100)
        table.arm(a, at: 700)
        XCTAssertEqual(table.armedCount, 1)
        XCTAssertNil(table.takeIfDue(a, now: 500), "the later arming replaced the earlier")
        table.disarm(a)
        XCTAssertEqual(table.earliest, EventTimerTable.never)
        table.arm(a, at: 10)
        table.remove(a)
        XCTAssertEqual(table.armedCount, 0)
        XCTAssertNil(table.takeIfDue(a, now: 1_000))
        XCTAssertEqual(table.add {}, a, "a removed slot is reused")
    }

    func testAnActionThatDisarmsOrPostponesALaterDueTimerKeepsItFromFiringInThatTurn() {
        var table = EventTimerTable()
        var log: [String] = []
        var b = 0, c = 0
        let a = table.add { log.append("a") }
        b = table.add { log.append("b") }
        c = table.add { log.append("c") }
        table.arm(a, at: 10)
        table.arm(b, at: 20)
        table.arm(c, at: 30)
        var due: [Int] = []
        table.collectDue(now: 100, into: &due)
        for slot in due {
            guard let action = table.takeIfDue(slot, now: 100) else { continue }
            action()
            if slot == a {
                table.disarm(b)
                table.arm(c, at: 200)
            }
        }
        XCTAssertEqual(log, ["a"])
        XCTAssertEqual(table.earliest, 200)
    }
}
