import CallModel
import RunFormats
import Foundation
import XCTest

/// history.jsonl's lines as the checker reads them (docs/CHECKER.md): the reference shapes byte for byte, and a
/// foreign server's text, whatever it holds, still one valid JSON object per line.
final class HistoryTextTests: XCTestCase {
    private func text(_ write: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        write(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func testReferenceLinesKeepTheirExactShape() {
        var view = ConversationView(uuid: "c1", version: 3, members: [
            .init(device: "dev-1", state: .joined), .init(device: "dev-2", state: .ringing)])
        view.hasVersion = true
        XCTAssertEqual(text { HistoryText.invoke(t: 5, op: 7, device: "dev-1", kind: .join, conversation: "c1",
                                                 with: nil, member: nil, call: 2, step: "answer", into: &$0) },
                       #"{"t":5,"type":"invoke","op":7,"device":"dev-1","kind":"join","conversation":"c1","#
                       + #""call":2,"step":"answer"}"#)
        XCTAssertEqual(text { HistoryText.complete(t: 9, op: 7, outcome: "ok", reason: nil, conversation: "c1",
                                                   view: view, split: nil, into: &$0) },
                       #"{"t":9,"type":"complete","op":7,"outcome":"ok","conversation":"c1","view":{"id":"c1","#
                       + #""version":3,"ended":false,"members":[{"device":"dev-1","state":"joined"},"#
                       + #"{"device":"dev-2","state":"ringing"}]}}"#)
        XCTAssertEqual(text { HistoryText.stop(t: 18_446_744_073_709_551_615, into: &$0) },
                       #"{"t":18446744073709551615,"type":"stop"}"#)
    }

    func testAForeignServersIdsWithQuotesBackslashesAndControlsStayOneValidLine() throws {
        let id = "call \"42\" \\ path\n\u{1}é"
        var view = ConversationView(uuid: id, version: 0,
                                    members: [.init(device: "who\"ever", handle: nil, state: "joined")])
        view.hasVersion = false
        let lines = [
            text { HistoryText.push(t: 1, device: "dev-1", event: "call.state", conversation: id, into: "x\\y",
                                    view: view, into: &$0) },
            text { HistoryText.final(t: 2, device: "dev-1", conversation: id, server: view,
                                     local: (state: "joined", members: ["who\"ever"], active: []), into: &$0) },
            text { HistoryText.invoke(t: 3, op: 1, device: "dev-1", kind: .end, conversation: id, with: nil,
                                      member: nil, race: (name: "r\"1", offset: -4), into: &$0) },
        ]
        for line in lines {
            XCTAssertFalse(line.contains("\n"), line)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(object["conversation"] as? String, id, line)
        }
        let push = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        let pushed = try XCTUnwrap(push["view"] as? [String: Any])
        XCTAssertEqual((pushed["members"] as? [[String: Any]])?.first?["device"] as? String, "who\"ever")
        XCTAssertNil(pushed["version"], "a view without a version writes none")
        XCTAssertEqual(push["into"] as? String, "x\\y")
    }
}
