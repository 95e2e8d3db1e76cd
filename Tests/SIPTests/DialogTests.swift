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

    /// The caller's early dialog confirmed in place by the 2xx is the dialog the 2xx alone makes, the 2xx's
    /// Contact, To and route set taken over, and writes the same requests; a 2xx with another To tag or a 1xx
    /// confirms nothing and leaves the dialog as it was.
    func testEarlyDialogConfirmedByItsTwoHundredIsTheDialogTheTwoHundredMakes() throws {
        let request = invite()
        var ringing = request.response(180, toTag: "b")
        ringing.addHeader(.recordRoute, "<sip:p1;lr>")
        ringing.addHeader(.contact, "<sip:bob@10.0.0.1:5072>")
        var early = try XCTUnwrap(SIPDialog(uac: request, response: ringing))
        XCTAssertEqual(early.state, .early)
        var ok = request.response(200, toTag: "b")
        ok.addHeader(.recordRoute, "<sip:p1;lr>, <sip:p2;lr>")
        ok.addHeader(.contact, "<sip:bob@127.0.0.1:5072>")
        let before = early
        XCTAssertFalse(early.confirm(by: ringing, invite: request), "a 1xx confirms nothing")
        XCTAssertFalse(early.confirm(by: request.response(200, toTag: "x"), invite: request), "another phone's")
        XCTAssertEqual(early, before)
        XCTAssertTrue(early.confirm(by: ok, invite: request))
        var made = try XCTUnwrap(SIPDialog(uac: request, response: ok))
        XCTAssertEqual(early, made)
        XCTAssertEqual(before.state, .early, "the copy taken before is its own")
        XCTAssertEqual(early.request(.bye).serialized(), made.request(.bye).serialized())
        XCTAssertEqual(early.ack(cseq: 5).serialized(), made.ack(cseq: 5).serialized())
    }

    func testProvisionalWithoutToTagMakesNoDialog() {
        XCTAssertNil(SIPDialog(uac: invite(), response: invite().response(180)))
    }

    /// A re-INVITE's Contact becomes the target (§12.2.2): the same URI changes nothing, another is taken, and
    /// one that is no address leaves the target as it was.
    func testTargetRefreshTakesANewContactAndKeepsTheSameOne() throws {
        var callee = try XCTUnwrap(SIPDialog(uas: invite(), localTag: "b"))
        XCTAssertEqual(callee.remoteTarget, "sip:alice@127.0.0.1:5070")
        for (contact, target) in [("<sip:alice@127.0.0.1:5070>", "sip:alice@127.0.0.1:5070"),
                                  ("\"A\" <sip:alice@127.0.0.1:5071>;expires=60", "sip:alice@127.0.0.1:5071"),
                                  ("<sip:alice@127.0.0.1:5071>", "sip:alice@127.0.0.1:5071"),
                                  ("<sip:alice@127.0.0.1:507>", "sip:alice@127.0.0.1:507"),
                                  ("not an address", "sip:alice@127.0.0.1:507")] {
            var request = invite()
            request.headers = request.headers.filter { $0.name != "Contact" } + [SIPHeader("Contact", contact)]
            callee.refreshTarget(from: request)
            XCTAssertEqual(callee.remoteTarget, target, contact)
        }
    }
}
