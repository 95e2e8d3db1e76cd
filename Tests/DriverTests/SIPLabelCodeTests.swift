@testable import Driver
import SIP
import XCTest

/// The SIP tap's labels by number (`SIPLabelCode`) say what `SIPSignaling.historyLabel` says of the same message:
/// requests, re-INVITEs, responses to each method, no line for REGISTER and OPTIONS, and the text's path for any
/// other method.
final class SIPLabelCodeTests: XCTestCase {
    private func message(_ startLine: String, cseq: String, toTag: Bool = false) throws -> SIPMessage {
        let to = toTag ? "<sip:bob@example.com>;tag=b1" : "<sip:bob@example.com>"
        let text = "\(startLine)\r\nVia: SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK1\r\n" +
            "From: <sip:alice@example.com>;tag=a1\r\nTo: \(to)\r\nCall-ID: c1@127.0.0.1\r\nCSeq: \(cseq)\r\n" +
            "Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
        return try SIPParser.parse(datagram: Array(text.utf8))
    }

    private func assertSameLabel(_ m: SIPMessage, _ note: String, file: StaticString = #filePath, line: UInt = #line) {
        let code = SIPLabelCode.of(m)
        let expected = SIPSignaling.historyLabel(m)
        if expected == nil {
            XCTAssertEqual(code, SIPLabelCode.none, note, file: file, line: line)
        } else {
            XCTAssertGreaterThanOrEqual(code, 0, note, file: file, line: line)
            XCTAssertEqual(SIPLabelCode.label(code), expected, note, file: file, line: line)
        }
    }

    func testRequestsAndReInvitesAreLabelledAsTheHistoryLabelsThem() throws {
        for method in ["INVITE", "ACK", "BYE", "CANCEL"] {
            let m = try message("\(method) sip:bob@example.com SIP/2.0", cseq: "1 \(method)")
            assertSameLabel(m, method)
        }
        let reInvite = try message("INVITE sip:bob@example.com SIP/2.0", cseq: "2 INVITE", toTag: true)
        XCTAssertEqual(SIPLabelCode.label(SIPLabelCode.of(reInvite)), "re-INVITE")
        assertSameLabel(reInvite, "re-INVITE")
    }

    func testResponsesAreLabelledByStatusAndMethodEachApart() throws {
        var codes = Set<Int>()
        for method in ["INVITE", "ACK", "BYE", "CANCEL"] {
            for status in [100, 180, 183, 200, 404, 481, 486, 487, 603, 699] {
                let m = try message("SIP/2.0 \(status) Whatever", cseq: "1 \(method)", toTag: true)
                assertSameLabel(m, "\(status) \(method)")
                codes.insert(SIPLabelCode.of(m))
            }
        }
        XCTAssertEqual(codes.count, 40, "one number per status and method")
    }

    func testRegisterAndOptionsHaveNoLineAndOtherMethodsGoByText() throws {
        for method in ["REGISTER", "OPTIONS"] {
            XCTAssertEqual(SIPLabelCode.of(try message("\(method) sip:example.com SIP/2.0", cseq: "1 \(method)")),
                           SIPLabelCode.none)
            XCTAssertEqual(SIPLabelCode.of(try message("SIP/2.0 200 OK", cseq: "1 \(method)")), SIPLabelCode.none)
        }
        XCTAssertEqual(SIPLabelCode.of(try message("INFO sip:bob@example.com SIP/2.0", cseq: "3 INFO")),
                       SIPLabelCode.other)
        XCTAssertEqual(SIPLabelCode.of(try message("SIP/2.0 200 OK", cseq: "3 INFO")), SIPLabelCode.other)
    }
}
