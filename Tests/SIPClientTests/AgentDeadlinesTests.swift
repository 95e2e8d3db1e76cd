@testable import SIPClient
import XCTest

/// The pool's heap of agent deadlines: only due agents come out, each once, and a moved deadline is not lost.
final class AgentDeadlinesTests: XCTestCase {
    func testOnlyDueAgentsComeOutEarliestFirstAndEachOnce() {
        var deadlines = AgentDeadlines()
        deadlines.note(1, 30)
        deadlines.note(2, 10)
        deadlines.note(3, nil)
        deadlines.note(4, 20)
        deadlines.note(2, 5)
        XCTAssertEqual(deadlines.popDue(4), [])
        XCTAssertEqual(deadlines.popDue(20), [2, 4], "agent 2 once, at its earlier deadline")
        XCTAssertEqual(deadlines.popDue(25), [], "agent 2's later entry is stale")
        XCTAssertEqual(deadlines.popDue(100), [1])
    }

    func testALaterDeadlineKeepsTheEarlierEntryAndAClosedAgentIsSkipped() {
        var deadlines = AgentDeadlines()
        deadlines.note(1, 10)
        deadlines.note(1, 50)
        deadlines.note(2, 10)
        deadlines.remove(2)
        XCTAssertEqual(deadlines.popDue(10), [1], "the pool asks agent 1 again and notes what it says")
        deadlines.note(1, 50)
        XCTAssertEqual(deadlines.popDue(49), [])
        XCTAssertEqual(deadlines.popDue(50), [1])
        XCTAssertEqual(deadlines.popDue(1_000), [])
    }
}
