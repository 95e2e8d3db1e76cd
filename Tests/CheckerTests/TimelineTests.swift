import XCTest
@testable import Checker

final class TimelineTests: XCTestCase {
    func testTimelineHasALanePerDeviceAndTheServerAndHighlightsTheBreakingEvent() throws {
        var h = HistoryBuilder()
        h.call("adam", "join", "A", view: view("A", 2, "ryan:joined adam:joined"))
        h.push("ryan", "joined", "A", view: view("A", 2, "ryan:joined adam:joined"))
        h.call("ryan", "start", view: view("B", 1, "ryan:joined bob:ringing"))
        let events = try h.events()
        let violation = try XCTUnwrap(HistoryChecker.check(events).violations.first)
        let svg = Timeline.svg(for: violation, in: events)
        XCTAssertTrue(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        XCTAssertTrue(svg.hasSuffix("</svg>"))
        for lane in [">ryan<", ">adam<", ">server<"] { XCTAssertTrue(svg.contains(lane), lane) }
        XCTAssertTrue(svg.contains("op 2 ok B v1"), svg)
        XCTAssertTrue(svg.contains("push joined A"), "related lines in the window are drawn")
        XCTAssertEqual(svg.components(separatedBy: "stroke=\"#d00\"").count - 1, 1, "one breaking arrow")
        XCTAssertFalse(svg.contains("<script"))
    }

    func testASIPFindingIsDrawnWithItsMessagesAndDialogStates() throws {
        var h = HistoryBuilder()
        h.sip("alice", "c1", sent: true, "INVITE")
        h.sip("bob", "c1", sent: false, "INVITE")
        h.dialog("bob", "c1", "confirmed")
        h.dialog("alice", "c1", "confirmed")
        h.sip("alice", "c1", sent: true, "BYE")
        h.dialog("alice", "c1", "terminated", reason: "bye")
        let events = try h.events()
        let violation = try XCTUnwrap(HistoryChecker.check(events).violations.first)
        XCTAssertEqual(violation.rule, .finalViewsAgree)
        let svg = Timeline.svg(for: violation, in: events)
        for text in [">alice<", ">bob<", "BYE c1", "dialog c1: terminated (bye)", "dialog c1: confirmed"] {
            XCTAssertTrue(svg.contains(text), "\(text): \(svg)")
        }
    }

    func testTimelineEscapesText() {
        let v = Violation(rule: .finalViewsAgree, conversations: ["A<&>"], ops: [], devices: ["d\"1"],
                          message: "a < b", window: 0...0, events: [0])
        let events = [HistoryEvent(t: 0, .final(Final(device: "d\"1", conversation: "A<&>", server: nil,
                                                      local: LocalView(state: .left, members: [], active: []))))]
        let svg = Timeline.svg(for: v, in: events)
        XCTAssertTrue(svg.contains("A&lt;&amp;&gt;"))
        XCTAssertTrue(svg.contains("d&quot;1"))
        XCTAssertFalse(svg.contains("A<&>"))
    }
}
