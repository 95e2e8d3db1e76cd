@testable import SIPClient
import Determinism
import SIP
import XCTest

/// The INVITE sessions: dialogs found by Call-ID and both tags (RFC 3261 §12), so a forking proxy's two answers
/// to one INVITE are two dialogs of one call; and the one in-dialog guard (481, 500).
final class InviteSessionsTests: XCTestCase {
    private let clock = ManualClock()
    private let alice = SIPUserAgent(account: SIPAccount(user: "alice", domain: "127.0.0.1", password: "a"),
                                     transport: .udp, localPort: 5071, seed: 1)

    /// The requests alice sent since the last look, parsed.
    private func sent() throws -> [SIPMessage] {
        try alice.takeOutbox().map { try SIPParser.parse(datagram: $0.bytes) }
    }

    /// A phone behind the forking proxy answers alice's INVITE with `status`, its own To tag and Contact.
    private func answer(_ invite: SIPMessage, _ status: Int, phone: String) {
        var response = invite.response(status, toTag: phone)
        response.addHeader(.contact, "<sip:bob@\(phone).example:5060>")
        if status == 200 {
            response.addHeader(.contentType, "application/sdp")
            response.body = SDPSession(address: "10.0.0.2", port: 40_002).body
        }
        alice.receive(response, source: 1, now: clock.nowNanos())
    }

    func testAForkingProxysTwoAnswersAreTwoDialogsOfOneCallAndTheSecondIsAckedAndEndedByBye() throws {
        let call = alice.invite("sip:bob@127.0.0.1", now: clock.nowNanos())
        let invite = try XCTUnwrap(sent().first)
        answer(invite, 180, phone: "a")
        answer(invite, 180, phone: "b")
        let aliceTag = try XCTUnwrap(invite.fromTag)
        let early = Set(alice.sessions.dialogs.keys)
        XCTAssertEqual(early, [SIPDialog.ID(callID: call, localTag: aliceTag, remoteTag: "a"),
                               SIPDialog.ID(callID: call, localTag: aliceTag, remoteTag: "b")],
                       "two early dialogs share the Call-ID")
        XCTAssertTrue(alice.sessions.dialogs.values.allSatisfy { $0.state == .early })

        answer(invite, 200, phone: "a")
        let ackA = try XCTUnwrap(sent().first)
        XCTAssertEqual(ackA.method, .ack)
        XCTAssertEqual(ackA.requestURI, "sip:bob@a.example:5060")
        answer(invite, 200, phone: "b")
        let toB = try sent()
        XCTAssertEqual(toB.map { $0.method }, [.ack, .bye], "the second answer is ACKed, then ended (§13.2.2.4)")
        XCTAssertEqual(toB.map { $0.requestURI }, ["sip:bob@b.example:5060", "sip:bob@b.example:5060"])
        XCTAssertEqual(toB.map { $0.toTag }, ["b", "b"])
        XCTAssertEqual(alice.takeEvents(), [.progress(call: call, status: 180), .progress(call: call, status: 180),
                                            .answered(call: call)])

        alice.receive(toB[1].response(200), source: 1, now: clock.nowNanos())
        XCTAssertEqual(alice.takeEvents(), [], "ending the second phone's dialog does not end the call")
        XCTAssertEqual(alice.callCount, 1)
        XCTAssertEqual(Set(alice.sessions.dialogs.keys), [SIPDialog.ID(callID: call, localTag: aliceTag,
                                                                       remoteTag: "a")])
        XCTAssertTrue(alice.bye(call, now: clock.nowNanos()))
        let bye = try XCTUnwrap(sent().first)
        XCTAssertEqual(bye.requestURI, "sip:bob@a.example:5060", "the call's BYE goes to the phone that answered")
        XCTAssertEqual(bye.toTag, "a")
        alice.receive(bye.response(200), source: 1, now: clock.nowNanos())
        XCTAssertEqual(alice.takeEvents(), [.ended(call: call, reason: .localBye)])
        XCTAssertTrue(alice.sessions.dialogs.isEmpty)
    }

    /// A request inside a dialog must name it by both tags: the right Call-ID and To tag with another From tag
    /// is no dialog of this agent's (481, counted stray), and the same request with the dialog's own tags is
    /// taken. (An older CSeq's 500: the next test.)
    func testTheInDialogGuardRefusesAnotherFromTag481AndTakesTheDialogsOwnTags() throws {
        let call = alice.invite("sip:bob@127.0.0.1", now: clock.nowNanos())
        let invite = try XCTUnwrap(sent().first)
        answer(invite, 200, phone: "a")
        _ = try sent()
        let aliceTag = try XCTUnwrap(invite.fromTag)
        func bye(from tag: String, cseq: UInt32, branch: String) -> SIPMessage {
            var request = SIPMessage.request(.bye, uri: "sip:alice@127.0.0.1:5071")
            request.addHeader(.via, "SIP/2.0/UDP 10.0.0.2:5060;branch=\(branch)")
            request.addHeader(.from, "<sip:bob@127.0.0.1>;tag=\(tag)")
            request.addHeader(.to, "<sip:alice@127.0.0.1>;tag=\(aliceTag)")
            request.addHeader(.callID, call)
            request.addHeader(.cseq, SIPCSeq(cseq, .bye).text)
            return request
        }
        alice.receive(bye(from: "b", cseq: 5, branch: "z9hG4bK1"), source: 1, now: clock.nowNanos())
        XCTAssertEqual(try sent().map { $0.status }, [481])
        XCTAssertEqual(alice.counters.stray, ["BYE": 1])
        alice.receive(bye(from: "a", cseq: 5, branch: "z9hG4bK2"), source: 1, now: clock.nowNanos())
        XCTAssertEqual(try sent().map { $0.status }, [200])
        XCTAssertEqual(alice.takeEvents().last, .ended(call: call, reason: .remoteBye))
    }

    func testAnInDialogRequestWithAnOlderCSeqIsRefused500AndTheCallStaysUp() throws {
        let bob = SIPUserAgent(account: SIPAccount(user: "bob", domain: "127.0.0.1", password: "b"), transport: .udp,
                               localPort: 5072, seed: 2)
        let call = alice.invite("sip:bob@127.0.0.1", now: clock.nowNanos())
        for (bytes, _) in alice.takeOutbox() { bob.receive(datagram: bytes, source: 1, now: clock.nowNanos()) }
        XCTAssertTrue(bob.answer(call, now: clock.nowNanos()))
        for (bytes, _) in bob.takeOutbox() { alice.receive(datagram: bytes, source: 2, now: clock.nowNanos()) }
        for (bytes, _) in alice.takeOutbox() { bob.receive(datagram: bytes, source: 1, now: clock.nowNanos()) }
        XCTAssertTrue(alice.setHold(call, held: true, now: clock.nowNanos()))
        let reinvite = try XCTUnwrap(sent().first)
        bob.receive(reinvite, source: 1, now: clock.nowNanos())
        var older = reinvite
        older.setHeader(.via, "SIP/2.0/UDP 127.0.0.1:5071;branch=z9hG4bKolder;rport")
        older.setHeader(.cseq, SIPCSeq(1, .invite).text)
        bob.receive(older, source: 1, now: clock.nowNanos())
        let answers = try bob.takeOutbox().map { try SIPParser.parse(datagram: $0.bytes).status }
        XCTAssertEqual(answers.suffix(2), [200, 500])
        XCTAssertEqual(bob.callCount, 1)
    }

    /// The byte reading of a Request-URI's user decides as the `String` reading does for ASCII, and leaves
    /// anything else to it.
    func testTheRequestURIsUserIsReadOverTheBytesWhenASCII() {
        XCTAssertEqual(InviteSessions.asciiUser("sip:bob@127.0.0.1", is: "bob"), true)
        XCTAssertEqual(InviteSessions.asciiUser("sips:bob@h", is: "bob"), true)
        XCTAssertEqual(InviteSessions.asciiUser("sip:alice@h", is: "bob"), false)
        XCTAssertEqual(InviteSessions.asciiUser("sip:bobby@h", is: "bob"), false)
        XCTAssertEqual(InviteSessions.asciiUser("SIP:bob@h", is: "bob"), false, "the scheme is matched as written")
        XCTAssertEqual(InviteSessions.asciiUser("sip:127.0.0.1", is: "bob"), true, "no user: the host alone")
        XCTAssertNil(InviteSessions.asciiUser("sip:bo\u{301}b@h", is: "bob"))
        XCTAssertNil(InviteSessions.asciiUser("sip:bob@h", is: "b\u{f6}b"))
    }
}
