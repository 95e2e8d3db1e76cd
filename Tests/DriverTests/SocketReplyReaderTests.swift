import Scenario
import TextEscaping
import XCTest
@testable import Driver

/// A socket reply read as an HTTP answer: by status, by ok flag, or neither.
final class SocketReplyReaderTests: XCTestCase {
    private func read(_ reply: APIMapping.Socket.Reply, _ text: String) -> (Int, String, Bool) {
        let bytes = Array(text.utf8)
        var pattern = JSONPattern()
        let reader = SocketReplyReader(reply, into: &pattern)
        let response = reader.response(JSONScan(bytes, pattern)!)
        return (response.status, String(decoding: response.body, as: UTF8.self),
                response.header(SocketReplyReader.alreadyEndedHeader) != nil)
    }

    func testAnOkFlagReadsAs200OrARefusalAndAnAlreadyEndedWordIsMarked() {
        let reply = APIMapping.Socket.Reply(id: "$.ref", body: "$.call", ok: "$.ok", error: "$.error.code",
                                            alreadyEnded: ["over"])
        let ok = read(reply, "{\"ref\":\"1\",\"ok\":true,\"call\":{\"callId\":\"c\"}}")
        XCTAssertEqual(ok.0, 200)
        XCTAssertEqual(ok.1, "{\"callId\":\"c\"}")
        XCTAssertFalse(ok.2)
        XCTAssertEqual(read(reply, "{\"ref\":\"1\",\"ok\":false,\"error\":{\"code\":\"conflict\"}}").0, 409)
        XCTAssertFalse(read(reply, "{\"ref\":\"1\",\"ok\":false,\"error\":{\"code\":\"conflict\"}}").2)
        let ended = read(reply, "{\"ref\":\"1\",\"ok\":false,\"error\":{\"code\":\"over\"}}")
        XCTAssertEqual(ended.0, 409)
        XCTAssertTrue(ended.2)
        XCTAssertEqual(read(reply, "{\"ref\":\"1\",\"ok\":\"yes\"}").0, 0, "an ok flag that is not a boolean")
        XCTAssertEqual(read(reply, "{\"ref\":\"1\"}").0, 0, "no ok flag")
    }

    func testAStatusIsReadAsItIsAndWithoutEitherEveryReplyIs200() {
        let byStatus = APIMapping.Socket.Reply(id: "$.id", status: "$.status", body: "$.body")
        XCTAssertEqual(read(byStatus, "{\"id\":\"1\",\"status\":410,\"body\":null}").0, 410)
        XCTAssertEqual(read(byStatus, "{\"id\":\"1\"}").0, 0)
        let plain = read(APIMapping.Socket.Reply(id: "$.id"), "{\"id\":\"1\",\"x\":2}")
        XCTAssertEqual(plain.0, 200)
        XCTAssertEqual(plain.1, "{\"id\":\"1\",\"x\":2}", "without a body path the whole message is the body")
    }
}
