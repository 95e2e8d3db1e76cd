import CallModel
import Foundation
import XCTest
@testable import Checker
import HistoryLoading
import TestSupport

final class HistoryReaderTests: XCTestCase {
    func testReadsEveryLineTypeOfTheFormat() throws {
        let text = """
        {"t":1200,"type":"invoke","op":17,"device":"dev-1","kind":"merge","conversation":"A","with":"B"}
        {"t":1300,"type":"invoke","op":18,"device":"dev-1","kind":"start","planned":1250}

        {"t":1500,"type":"complete","op":17,"outcome":"ok","conversation":"A","view":{"id":"A","version":3,"ended":false,"members":[{"device":"dev-1","state":"joined"},{"device":"dev-2","state":"held"}]}}
        {"t":1550,"type":"complete","op":18,"outcome":"fail","reason":"conflict \\"409\\"\\u0021"}
        {"t":1600,"type":"push","device":"dev-2","event":"merged","conversation":"B","into":"A","view":{"id":"A","version":3,"ended":false,"members":[]}}
        {"t":9000,"type":"final","device":"dev-2","conversation":"A","server":{"id":"A","version":3,"ended":true,"members":[]},"local":{"state":"left","members":["dev-1"],"active":[]}}
        {"t":9100,"type":"stop"}
        """
        let events = try HistoryReader.parse(lines: text.split(separator: "\n", omittingEmptySubsequences: false))
        XCTAssertEqual(events.count, 7)
        XCTAssertEqual(events[0], HistoryEvent(t: 1200, line: 1, .invoke(Invoke(op: 17, device: "dev-1", kind: .merge,
                                                                               conversation: "A", with: "B"))))
        XCTAssertEqual(events[1].line, 2)
        XCTAssertEqual(events[2].line, 4, "blank lines are skipped but still counted")
        let view = ConversationView(uuid: "A", version: 3, members: [
            .init(device: "dev-1", state: .joined), .init(device: "dev-2", state: .held),
        ])
        XCTAssertEqual(events[2].body, .complete(Complete(op: 17, outcome: .ok, conversation: "A", view: view)))
        XCTAssertEqual(events[3].body, .complete(Complete(op: 18, outcome: .fail, reason: "conflict \"409\"!")))
        guard case .push(let p) = events[4].body, case .final(let f) = events[5].body else {
            return XCTFail("\(events)")
        }
        XCTAssertEqual(p.into, "A")
        XCTAssertEqual(p.event, .merged)
        XCTAssertEqual(f.local, LocalView(state: .left, members: ["dev-1"], active: []))
        XCTAssertEqual(f.server?.ended, true)
        XCTAssertEqual(events[6].body, .stop)
    }

    func testParseErrorNamesTheLine() {
        let text = """
        {"t":1,"type":"invoke","op":1,"device":"d","kind":"start"}
        {"t":2,"type":"complete","op":1,"outcome":"ok"}
        {"t":3,"type":"complete","op":1,"outcome":"ok",
        """
        XCTAssertThrowsError(try HistoryReader.parse(lines: text.split(separator: "\n"))) { error in
            guard case HistoryError.malformed(let line, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(line, 3)
            XCTAssertTrue("\(error)".hasPrefix("history line 3, column "), "\(error)")
        }
    }

    func testUnknownKindIsAnErrorThatListsTheKnownOnes() {
        let line = #"{"t":1,"type":"invoke","op":1,"device":"d","kind":"transfer","conversation":"A"}"#
        XCTAssertThrowsError(try HistoryReader.parse(lines: [Substring(line)])) { error in
            XCTAssertTrue("\(error)".contains("unknown kind \"transfer\""), "\(error)")
            XCTAssertTrue("\(error)".contains("line 1"), "\(error)")
        }
    }

    func testJoinWithoutConversationIsAnError() {
        let line = #"{"t":1,"type":"invoke","op":1,"device":"d","kind":"join"}"#
        XCTAssertThrowsError(try HistoryReader.parse(lines: [Substring(line)])) { error in
            XCTAssertTrue("\(error)".contains("without \"conversation\""), "\(error)")
        }
    }

    func testReadingAFileEqualsParsingItsLines() throws {
        let h = HistoryCheckerTests.seedStory()
        let url = TemporaryDirectory.path("history", suffix: ".jsonl")
        try h.text.write(to: url, atomically: true, encoding: .utf8)
        defer { TemporaryDirectory.remove(url) }
        XCTAssertEqual(try HistoryReader.read(contentsOf: url), try h.events())
    }

    func testMissingFileIsAnUnreadableError() {
        let url = URL(fileURLWithPath: "/nonexistent/history.jsonl")
        XCTAssertThrowsError(try HistoryReader.read(contentsOf: url)) { error in
            guard case HistoryError.unreadable(let path, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "/nonexistent/history.jsonl")
        }
    }
}
