import Metrics
import XCTest

final class BooksTests: XCTestCase {
    private let balanced: [String: Int64] = [
        "action.join.started": 10, "action.join.fulfilled": 6, "action.join.failed": 1, "action.join.failed.http_500": 1,
        "action.join.timed_out": 2, "action.join.in_flight_at_stop": 1,
        "calls.started": 5, "calls.completed": 3, "calls.failed": 1, "calls.in_flight_at_stop": 1,
        "gateway.pushes.sent": 12, "gateway.pushes.accepted": 9, "gateway.pushes.rejected": 3,
        "pushes.accepted": 9, "pushes.duplicated": 1, "pushes.delivered": 5, "pushes.dropped_by_fault": 2,
        "pushes.blocked_after_missed_deadlines": 1, "pushes.expired_discarded": 1, "pushes.undelivered_at_stop": 1,
    ]

    func testBalancedCountersHaveNoProblems() {
        let books = Books(counters: balanced)
        XCTAssertEqual(books.problems, [])
        XCTAssertEqual(books.actions.map(\.kind), ["join"], "failed.<reason> counters are not a kind")
        XCTAssertEqual(books.actions[0].accounted, 10)
        XCTAssertEqual(books.pushes.sent, 12)
    }

    /// Failures whose effect is unknown (history's `info` with a reason) are a column of their own (issue 32).
    func testFailuresWhoseEffectIsUnknownBalanceTheActionBook() {
        var c = balanced
        c["action.join.started"] = 13
        XCTAssertEqual(Books(counters: c).problems.count, 1, "three actions unaccounted")
        c["action.join.unknown"] = 3
        c["action.join.unknown.http_503"] = 3
        let books = Books(counters: c)
        XCTAssertEqual(books.problems, [])
        XCTAssertEqual(books.actions.map(\.kind), ["join"], "unknown.<reason> counters are not a kind")
        XCTAssertEqual(books.actions[0].unknown, 3)
        XCTAssertEqual(books.lines.first, "action join: started 13 = fulfilled 6 + failed 1 + effect unknown 3 "
            + "+ timed out 2 + in flight at stop 1")
        XCTAssertNil(Books(counters: balanced).actions[0].unknown, "absent when none: older summaries read alike")
    }

    func testMissedCallsBalanceTheCallsBook() {
        var c = balanced
        c["calls.started"] = 7
        XCTAssertEqual(Books(counters: c).problems.count, 1, "two calls unaccounted")
        c["calls.missed"] = 2
        let books = Books(counters: c)
        XCTAssertEqual(books.problems, [])
        XCTAssertEqual(books.calls.missed, 2)
        XCTAssertTrue(books.lines.contains { $0.contains("missed 2") })
    }

    func testAnActionThatVanishedIsNamedWithTheDifference() {
        var c = balanced
        c["action.join.started"] = 11
        let books = Books(counters: c)
        XCTAssertEqual(books.problems.count, 1)
        XCTAssertTrue(books.problems[0].hasPrefix("action join: started 11"), books.problems[0])
        XCTAssertTrue(books.problems[0].contains("1 unaccounted"), books.problems[0])
    }

    func testPushesLostBetweenGatewayAndDevicesAreNamed() {
        var c = balanced
        c["gateway.pushes.accepted"] = 10
        c["gateway.pushes.sent"] = 13
        let books = Books(counters: c)
        XCTAssertEqual(books.problems, ["pushes: the gateway accepted 10 but the devices were handed 9 "
            + "(1 lost between gateway and devices)"])
    }

    func testAPushWithoutAFateAndAGatewayMiscountAreBothNamed() {
        var c = balanced
        c["pushes.delivered"] = 4
        c["gateway.pushes.rejected"] = 2
        let problems = Books(counters: c).problems
        XCTAssertEqual(problems.count, 2, "\(problems)")
        XCTAssertTrue(problems.contains { $0.hasPrefix("pushes at the gateway: sent 12") })
        XCTAssertTrue(problems.contains { $0.hasPrefix("pushes: accepted 9 + duplicated copies 1") })
    }

    func testWithoutGatewayCountersOnlyTheDriverBooksAreChecked() {
        var c = balanced
        c["gateway.pushes.sent"] = nil
        c["gateway.pushes.accepted"] = nil
        c["gateway.pushes.rejected"] = nil
        let books = Books(counters: c)
        XCTAssertNil(books.pushes.sent)
        XCTAssertEqual(books.problems, [])
    }

    func testSocketBooksAppearOnlyWithSocketsAndNameTheDifference() {
        XCTAssertNil(Books(counters: balanced).sockets, "a run without sockets has no socket book")
        XCTAssertFalse(Books(counters: balanced).lines.contains { $0.hasPrefix("sockets") })
        var c = balanced
        c["socket.opened"] = 10
        c["socket.closed.device"] = 5
        c["socket.closed.server"] = 1
        c["socket.lost"] = 2
        c["socket.open_at_stop"] = 2
        XCTAssertEqual(Books(counters: c).problems, [])
        XCTAssertTrue(Books(counters: c).lines.contains(
            "sockets: opened 10 = closed by device 5 + closed by server 1 + lost 2 + open at stop 2"))
        c["socket.lost"] = 1
        XCTAssertEqual(Books(counters: c).problems, ["sockets: opened 10 ≠ closed by device 5 + closed by server 1 "
            + "+ lost 1 + open at stop 2 (= 9; 1 unaccounted)"])
    }

    /// Issue 32: the calls line says how many completed calls went unanswered as their flows end them, and which
    /// statuses refused the failed ones.
    func testTheCallsLineNamesUnansweredCompletedCallsAndTheStatusesThatRefusedTheFailedOnes() {
        let books = Books(counters: ["calls.started": 15, "calls.completed": 10, "calls.failed": 5,
                                     "calls.unanswered.cancelled": 2, "calls.failed.sip_486": 4,
                                     "calls.failed.sip_408": 1])
        XCTAssertTrue(books.balanced, "\(books.problems)")
        XCTAssertEqual(books.calls.unanswered, 2)
        XCTAssertEqual(books.calls.refused, ["sip_486": 4, "sip_408": 1])
        XCTAssertEqual(books.lines.first { $0.hasPrefix("calls:") }, "calls: started 15 = completed 10 + failed 5 + "
            + "missed 0 + in flight at stop 0 (2 of the completed unanswered, as their flows end them) (of the failed, "
            + "refused before an answer: sip_408 ×1, sip_486 ×4)")
        XCTAssertNil(Books(counters: ["calls.started": 1, "calls.completed": 1]).calls.refused)
    }
}
