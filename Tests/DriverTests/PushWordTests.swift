import XCTest
@testable import Driver
import RunFormats
import Scenario

/// A server's own event words (`target.api.push` / `socket.events`: joined, ended, merged, split) become the
/// driver's words; others pass through.
final class PushWordTests: XCTestCase {
    func testAServersWordsForMergedAndSplitBecomeTheDriversWords() {
        var fields = APIMapping.PushFields(conversation: "$.callId", event: "$.type", joined: ["call.answered"],
                                           ended: ["call.over"])
        (fields.merged, fields.split, fields.into) = (["call.merged"], ["call.split"], "$.into")
        let reader = ViewReader(view: nil, push: fields)
        func word(_ type: String) -> String? {
            reader.push(Array("{\"type\":\"\(type)\",\"callId\":\"c1\",\"into\":\"c2\"}".utf8))?.event
        }
        XCTAssertEqual(word("call.merged"), "merged")
        XCTAssertEqual(word("call.split"), "split")
        XCTAssertEqual(word("call.over"), "ended")
        XCTAssertEqual(word("call.answered"), "joined")
        XCTAssertEqual(word("call.ring"), "call.ring")
        XCTAssertEqual(reader.push(Array("{\"type\":\"call.split\",\"callId\":\"c1\",\"into\":\"c2\"}".utf8))?.into,
                       "c2")
    }

    func testTheDefaultWordsAreTheReferenceProtocols() {
        let reader = ViewReader(view: nil, push: APIMapping.PushFields())
        for word in ["merged", "split", "joined", "ended", "updated"] {
            XCTAssertEqual(reader.push(Array("{\"event\":\"\(word)\",\"uuid\":\"c1\"}".utf8))?.event, word)
        }
    }

    func testAServersOwnWordIsAnUpdatedPushInTheHistory() {
        func line(_ event: String) -> String {
            var bytes: [UInt8] = []
            HistoryText.push(t: 1, device: "dev-1", event: event, conversation: "c1", into: nil, view: nil,
                             into: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        XCTAssertTrue(line("call.state").contains("\"event\":\"updated\""), line("call.state"))
        for word in HistoryText.pushEvents {
            XCTAssertTrue(line(word).contains("\"event\":\"\(word)\""), word)
        }
    }
}
