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

    /// ASCII bodies are read over their bytes, others by Characters: both read the same session.
    func testBodiesAreReadAlikeWithAndWithoutNonASCIIText() throws {
        let lines = ["v=0", "o=- 7 42 IN IP4 10.0.0.1", "s=%@", "c=IN IP4 10.0.0.1", "a=sendonly", "t=0 0",
                     "m=audio 4000 RTP/AVP 0 8 x 101", "c=IN IP4 10.0.0.2", "a=rtpmap:0 PCMU/8000", "a=inactive",
                     "m=video 5000 RTP/AVP 96", "a=recvonly", "m=audio 6000 RTP/AVP 8", ""]
        let ascii = lines.joined(separator: "\r\n").replacingOccurrences(of: "%@", with: "call")
        let other = lines.joined(separator: "\n").replacingOccurrences(of: "%@", with: "caf\u{E9}")
        let expected = SDPSession(address: "10.0.0.2", port: 4000, formats: [0, 8, 101], direction: .inactive,
                                  version: 42)
        XCTAssertEqual(SDPSession(parsing: Array(ascii.utf8)), expected)
        XCTAssertEqual(SDPSession(parsing: Array(other.utf8)), expected)
        XCTAssertNil(SDPSession(parsing: Array("v=0\r\nm=audio 4000 RTP/AVP 0\r\n".utf8)), "no address")
        XCTAssertNil(SDPSession(parsing: Array("c=IN IP4 h\r\nm=audio 4000 RTP/AVP\r\n".utf8)), "no formats field")
    }
}
