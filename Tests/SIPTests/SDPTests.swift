import SIP
import XCTest

final class SDPTests: XCTestCase {
    func testHoldOfferIsAnsweredRecvonlyAndResumeSendrecv() throws {
        let hold = SDPSession(address: "127.0.0.1", port: 40000, direction: .sendonly, version: 2)
        let parsed = try XCTUnwrap(SDPSession(parsing: hold.body))
        XCTAssertEqual(parsed, hold)
        XCTAssertEqual(SDPSession.answer(to: parsed, address: "127.0.0.1", port: 40002)?.direction, .recvonly)
        let resume = SDPSession(address: "127.0.0.1", port: 40000, direction: .sendrecv, version: 3)
        XCTAssertEqual(SDPSession.answer(to: resume, address: "127.0.0.1", port: 40002)?.direction, .sendrecv)
    }

    func testOfferWithNoCommonCodecHasNoAnswer() {
        let offer = SDPSession(address: "127.0.0.1", port: 40000, formats: [96])
        XCTAssertNil(SDPSession.answer(to: offer, address: "127.0.0.1", port: 1))
    }
}
