import CallModel
import XCTest
@testable import Checker

/// `parse(buffer:sipMessages: false)`, the first reading of `callstorm run`'s check: `sip` lines keep their place,
/// time and line number with one blank payload, every other line reads as before, a malformed `sip` line fails
/// alike, and the checker's report is the same from either reading (no rule reads a `sip` line's texts).
final class HistoryReaderSIPMessagesTests: XCTestCase {
    private func parse(_ text: String, sipMessages: Bool) throws -> [HistoryEvent] {
        try Array(text.utf8).withUnsafeBufferPointer { try HistoryReader.parse(buffer: $0, sipMessages: sipMessages) }
    }

    /// Two calls, one ended by a BYE; a `sip` line with an escape (the general path) and one in another key order.
    private func history() -> HistoryBuilder {
        var h = HistoryBuilder()
        for (id, caller, callee) in [("c1@host", "alice", "bob"), ("c2@host", "carol", "dave")] {
            let start = h.invoke(caller, "start")
            h.sip(caller, id, sent: true, "INVITE")
            h.sip(callee, id, sent: false, "INVITE")
            h.dialog(callee, id, "early")
            h.complete(start)
            let join = h.invoke(callee, "join", id)
            h.dialog(callee, id, "confirmed")
            h.dialog(caller, id, "confirmed")
            h.sip(caller, id, sent: true, "ACK")
            h.complete(join)
        }
        h.lines.append(#"{"t":90,"type":"sip","device":"a\"b","conversation":"c1@host","sent":true,"message":"BYE"}"#)
        h.lines.append(#"{"t":91,"type":"sip","conversation":"c1@host","device":"bob","sent":false,"message":"BYE"}"#)
        h.dialog("alice", "c1@host", "terminated", reason: "bye")
        h.dialog("bob", "c1@host", "terminated", reason: "remote_bye")
        return h
    }

    func testSIPLinesKeepTheirPlaceTimeAndLineWithABlankPayloadAndTheRestReadsTheSame() throws {
        let text = history().text
        let full = try parse(text, sipMessages: true)
        let lean = try parse(text, sipMessages: false)
        XCTAssertEqual(full.count, lean.count)
        var sipLines = 0
        for (a, b) in zip(full, lean) {
            XCTAssertEqual(a.t, b.t)
            XCTAssertEqual(a.line, b.line)
            if case .sip = a.body {
                sipLines += 1
                XCTAssertEqual(b.body, HistoryReader.blankSIP)
                XCTAssertNotEqual(a.body, HistoryReader.blankSIP)
            } else {
                XCTAssertEqual(a.body, b.body)
            }
        }
        XCTAssertEqual(sipLines, 8)
    }

    func testTheCheckersReportIsTheSameFromEitherReading() throws {
        var h = history()
        // A finding too: the ended call's Call-ID confirmed again, so violations' event indexes are compared.
        h.dialog("alice", "c1@host", "confirmed")
        let text = h.text
        let full = HistoryChecker.check(try parse(text, sipMessages: true), policy: .reference)
        let lean = HistoryChecker.check(try parse(text, sipMessages: false), policy: .reference)
        XCTAssertFalse(full.violations.isEmpty)
        XCTAssertEqual(full, lean)
    }

    func testMalformedSIPLinesFailWithTheSameErrorEitherWay() {
        let bad = [
            #"{"t":1,"type":"sip","device":"d","conversation":"c","sent":true}"#,
            #"{"t":1,"type":"sip","device":"d","conversation":"c","sent":1,"message":"BYE"}"#,
            #"{"t":1,"type":"sip","device":"d","sent":true,"message":"BYE"}"#,
            #"{"t":1,"type":"sip","device":"d","conversation":"c","sent":true,"message":"BYE"#,
        ]
        for line in bad {
            let text = "{\"t\":0,\"type\":\"stop\"}\n" + line + "\n"
            var errors: [String] = []
            for sipMessages in [true, false] {
                XCTAssertThrowsError(try parse(text, sipMessages: sipMessages), line) {
                    errors.append("\($0)")
                }
            }
            XCTAssertEqual(errors.count, 2, line)
            XCTAssertEqual(errors.first, errors.last, line)
        }
    }
}
