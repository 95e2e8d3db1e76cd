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

    func testALaterDeadlineMovesTheEntryAndAClosedAgentIsSkipped() {
        var deadlines = AgentDeadlines()
        deadlines.note(1, 10)
        deadlines.note(1, 50)
        deadlines.note(2, 10)
        deadlines.remove(2)
        XCTAssertEqual(deadlines.popDue(10), [], "agent 1's deadline moved to 50, agent 2 is closed")
        deadlines.note(1, 50)
        XCTAssertEqual(deadlines.popDue(49), [])
        XCTAssertEqual(deadlines.popDue(50), [1])
        XCTAssertEqual(deadlines.popDue(1_000), [])
    }

    /// What the pool's timer is armed for: the earliest deadline an agent has now, not a stale or moved entry (each
    /// would wake the thread for nothing).
    func testTheNextDueIsTheEarliestLiveDeadline() {
        var deadlines = AgentDeadlines()
        XCTAssertEqual(deadlines.nextDue(), .max)
        deadlines.note(1, 10)
        deadlines.note(2, 20)
        deadlines.note(3, 30)
        XCTAssertEqual(deadlines.nextDue(), 10)
        deadlines.note(1, 40)
        XCTAssertEqual(deadlines.nextDue(), 20, "agent 1's entry moved to 40")
        deadlines.remove(2)
        XCTAssertEqual(deadlines.nextDue(), 30)
        deadlines.note(3, nil)
        XCTAssertEqual(deadlines.nextDue(), 40, "agent 3 has no deadline any more")
        deadlines.note(3, 35)
        XCTAssertEqual(deadlines.nextDue(), 35)
        XCTAssertEqual(deadlines.popDue(100), [3, 1])
        XCTAssertEqual(deadlines.nextDue(), .max)
    }

    /// The heap against a plain table of the same notes: after every note, removal and pop, the same next deadline,
    /// and the same agents due, earliest first and by id among equal deadlines (each entry sifted where it lies).
    func testAnyMixOfNotesAndPopsAgreesWithAPlainTable() {
        var deadlines = AgentDeadlines()
        var model: [Int: UInt64] = [:]
        var state: UInt64 = 0x5EED
        func draw(_ n: UInt64) -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (state >> 33) % n
        }
        var now: UInt64 = 0
        for step in 0..<5_000 {
            let agent = Int(draw(40))
            switch draw(10) {
            case 0: deadlines.note(agent, nil); model[agent] = nil
            case 1: deadlines.remove(agent); model[agent] = nil
            case 2:
                now += draw(30)
                let due = model.filter { $0.value <= now }.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
                XCTAssertEqual(deadlines.popDue(now), due.map(\.key), "step \(step)")
                for (key, _) in due { model[key] = nil }
            default:
                let at = now + draw(60)
                deadlines.note(agent, at)
                model[agent] = at
            }
            XCTAssertEqual(deadlines.nextDue(), model.values.min() ?? .max, "step \(step)")
        }
    }
}
