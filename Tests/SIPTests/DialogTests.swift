import SIP
import XCTest

final class DialogTests: XCTestCase {
    private func invite() -> SIPMessage {
        var m = SIPMessage.request(.invite, uri: "sip:bob@127.0.0.1")
        m.addHeader(.via, "SIP/2.0/UDP 127.0.0.1:5070;branch=z9hG4bK1")
        m.addHeader(.recordRoute, "<sip:p1;lr>, <sip:p2;lr>")
        m.addHeader(.from, "<sip:alice@127.0.0.1>;tag=a")
        m.addHeader(.to, "<sip:bob@127.0.0.1>")
        m.addHeader(.callID, "c1")
        m.addHeader(.cseq, "5 INVITE")
        m.addHeader(.contact, "<sip:alice@127.0.0.1:5070>")
        return m
    }

    func testBothEndsAgreeOnTheDialogAndTheRouteSetIsReversedForTheCaller() throws {
        let request = invite()
        var callee = try XCTUnwrap(SIPDialog(uas: request, localTag: "b"))
        var ok = request.response(200, toTag: "b")
        ok.addHeader(.recordRoute, "<sip:p1;lr>, <sip:p2;lr>")
        ok.addHeader(.contact, "<sip:bob@127.0.0.1:5072>")
        var caller = try XCTUnwrap(SIPDialog(uac: request, response: ok))
        XCTAssertEqual(caller.state, .confirmed)
        XCTAssertEqual(caller.id.callID, callee.id.callID)
        XCTAssertEqual(caller.localTag, callee.remoteTag)
        XCTAssertEqual(caller.routeSet, ["<sip:p2;lr>", "<sip:p1;lr>"])
        XCTAssertEqual(callee.routeSet, ["<sip:p1;lr>", "<sip:p2;lr>"])
        let ack = caller.ack(cseq: 5)
        XCTAssertEqual(ack.cseq, SIPCSeq(5, .ack))
        XCTAssertEqual(ack.requestURI, "sip:bob@127.0.0.1:5072")
        let bye = caller.request(.bye)
        XCTAssertEqual(bye.cseq, SIPCSeq(6, .bye))
        XCTAssertTrue(callee.acceptRemote(bye))
        XCTAssertFalse(callee.acceptRemote(bye), "a CSeq not above the last is refused (500)")
    }

    func testProvisionalWithoutToTagMakesNoDialog() {
        XCTAssertNil(SIPDialog(uac: invite(), response: invite().response(180)))
    }
}
