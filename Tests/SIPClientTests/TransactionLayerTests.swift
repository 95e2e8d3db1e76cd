@testable import SIPClient
import SIP
import XCTest

/// The agent's transaction layer alone: how a response finds its client transaction (§17.1.3), a request its
/// server transaction (§17.2.3), and what the tables keep and forget.
final class TransactionLayerTests: XCTestCase {
    private var layer = TransactionLayer(timers: SIPTimerValues(reliable: false))

    private func request(_ method: SIPMethod, branch: String, cseq: UInt32 = 1) -> SIPMessage {
        var request = SIPMessage.request(method, uri: "sip:bob@127.0.0.1")
        request.addHeader(.via, "SIP/2.0/UDP 127.0.0.1:5071;branch=\(branch);rport")
        request.addHeader(.from, "<sip:alice@127.0.0.1>;tag=f")
        request.addHeader(.to, "<sip:bob@127.0.0.1>")
        request.addHeader(.callID, "c1")
        request.addHeader(.cseq, SIPCSeq(cseq, method == .ack ? .invite : method).text)
        return request
    }

    func testAResponseFindsItsClientTransactionByBranchAndMethodSoACancelIsApartFromItsInvite() throws {
        let invite = request(.invite, branch: "z9hG4bKa")
        let (inviteKey, sent) = layer.start(invite, now: 0)
        XCTAssertEqual(sent, [.send(invite, retransmission: false)])
        let (cancelKey, _) = layer.start(request(.cancel, branch: "z9hG4bKa"), now: 0)
        XCTAssertNotEqual(inviteKey, cancelKey, "a CANCEL shares its INVITE's branch")

        let cancelled = try XCTUnwrap(layer.receive(response: request(.cancel, branch: "z9hG4bKa").response(200),
                                                    now: 1))
        XCTAssertEqual(cancelled.key, cancelKey)
        let terminated = try XCTUnwrap(layer.receive(response: invite.response(487, toTag: "t"), now: 2))
        XCTAssertEqual(terminated.key, inviteKey)
        XCTAssertFalse(terminated.absorbed)
        XCTAssertNil(layer.receive(response: request(.invite, branch: "z9hG4bKother").response(200), now: 3),
                     "a response no transaction sent matches none")
    }

    func testA2xxAgainInAcceptedIsAbsorbedYetStillDeliveredForItsAck() throws {
        let invite = request(.invite, branch: "z9hG4bKb")
        _ = layer.start(invite, now: 0)
        let ok = invite.response(200, toTag: "t")
        XCTAssertEqual(layer.receive(response: ok, now: 1)?.absorbed, false)
        let again = try XCTUnwrap(layer.receive(response: ok, now: 2))
        XCTAssertTrue(again.absorbed)
        XCTAssertEqual(again.effects, [.deliver(ok)])
    }

    func testARetransmittedRequestGetsTheLastResponseAgainAndTheAckOfANon2xxMatchesItsInvite() throws {
        let invite = request(.invite, branch: "z9hG4bKc")
        XCTAssertNil(layer.receive(request: invite, now: 0), "a new request starts no transaction by itself")
        let busy = invite.response(486, toTag: "t")
        let (key, effects) = layer.respond(busy, to: invite, source: 7, now: 0)
        XCTAssertEqual(effects, [.send(busy, retransmission: false)])
        XCTAssertEqual(layer.source(key), 7)
        let repeated = try XCTUnwrap(layer.receive(request: invite, now: 1))
        XCTAssertEqual(repeated.effects, [.send(busy, retransmission: true)])
        let ack = try XCTUnwrap(layer.receive(request: request(.ack, branch: "z9hG4bKc"), now: 2))
        XCTAssertEqual(ack.key, key, "the ACK of a non-2xx is its INVITE's transaction's (§17.2.3)")
        XCTAssertNil(layer.receive(request: request(.ack, branch: "z9hG4bKnew"), now: 2),
                     "the ACK of a 2xx has a branch of its own: its dialog finds it")
    }

    func testAnAcknowledged2xxEndsItsAcceptedServerTransaction() {
        let invite = request(.invite, branch: "z9hG4bKd")
        let (key, _) = layer.respond(invite.response(200, toTag: "t"), to: invite, source: 1, now: 0)
        XCTAssertTrue(layer.hasServer(key))
        XCTAssertEqual(layer.nextDeadline(), 500_000_000, "Timer G retransmits the 2xx until its ACK")
        layer.acknowledged(request(.ack, branch: "z9hG4bKnew"), key: key, now: 1)
        XCTAssertFalse(layer.hasServer(key))
        XCTAssertNil(layer.nextDeadline())
    }

    func testTimersFireOnAdvanceAndATerminatedTransactionIsForgotten() throws {
        let options = request(.options, branch: "z9hG4bKe")
        let (key, _) = layer.start(options, now: 0)
        XCTAssertEqual(layer.advance(to: 499_999_999).count, 0)
        let retransmitted = layer.advance(to: 500_000_000)
        XCTAssertEqual(retransmitted.first?.effects, [.send(options, retransmission: true)])
        let fired = try XCTUnwrap(layer.advance(to: 64 * 500_000_000).first)
        XCTAssertEqual(fired.key, key)
        XCTAssertEqual(fired.effects.suffix(2), [.timedOut(.f), .terminated])
        XCTAssertEqual(layer.request(key), options, "still there for the timeout's owner to read")
        layer.forget(key)
        XCTAssertNil(layer.request(key))
        XCTAssertNil(layer.nextDeadline())
    }

    /// The earliest deadline over both tables read afresh, each transaction asked: what the kept one must equal.
    private func walked() -> UInt64? {
        let all = layer.clients.entries.compactMap { $0.value.nextDeadline }
            + layer.servers.entries.compactMap { $0.value.nextDeadline }
        return all.min()
    }

    func testTheKeptEarliestDeadlineIsTheWalkedOneAfterEveryKindOfChange() throws {
        func check(_ step: String, line: UInt = #line) {
            XCTAssertEqual(layer.nextDeadline(), walked(), step, line: line)
        }
        let invite = request(.invite, branch: "z9hG4bKk1")
        _ = layer.start(invite, now: 0)
        check("a first transaction: its Timer A")
        _ = layer.receive(response: invite.response(100), now: 50)
        check("the only one moved later: its own deadline, no walk needed")
        let options = request(.options, branch: "z9hG4bKk2")
        _ = layer.start(options, now: 100)
        check("a later one started: the earliest stays")
        _ = layer.receive(response: invite.response(180, toTag: "t"), now: 200)
        check("the earliest one moved later (Timer A cancelled): walked again")
        let incoming = request(.invite, branch: "z9hG4bKk3")
        _ = layer.respond(incoming.response(200, toTag: "u"), to: incoming, source: 1, now: 300)
        check("a new server transaction")
        _ = layer.receive(response: options.response(200), now: 400)
        check("a non-INVITE completed: Timer K")
        _ = layer.receive(response: invite.response(200, toTag: "t"), now: 500)
        check("the INVITE accepted: Timer M")
        layer.acknowledged(request(.ack, branch: "z9hG4bKk4"), key: TransactionLayer.serverKey(of: incoming), now: 600)
        check("the server transaction ACKed and forgotten")
        _ = layer.advance(to: 10_000_000_000)
        check("timers fired")
        layer.forget(TransactionLayer.clientKey(of: options.response(200)))
        check("one forgotten")
        layer.forget(TransactionLayer.clientKey(of: invite.response(200)))
        check("all forgotten")
        XCTAssertNil(layer.nextDeadline())
    }

    /// A sleeping device's agent drops its transactions at sleep (`SIPUserAgent.sleep`): after `reset` nothing
    /// matches, no timer is due, no server keeps its source, and the next REGISTER starts as on a new layer.
    func testAResetLayerIsANewOneWithNothingLeft() throws {
        let register = request(.register, branch: "z9hG4bKr")
        _ = layer.start(register, now: 0)
        let incoming = request(.invite, branch: "z9hG4bKi")
        let (serverKey, _) = layer.respond(incoming.response(180, toTag: "u"), to: incoming, source: 4, now: 0)
        XCTAssertNotNil(layer.nextDeadline())
        layer.reset()
        XCTAssertNil(layer.nextDeadline(), "no transaction left to time")
        XCTAssertNil(layer.receive(response: register.response(200), now: 1))
        XCTAssertFalse(layer.hasServer(serverKey))
        XCTAssertNil(layer.source(serverKey))
        XCTAssertNil(layer.receive(request: incoming, now: 1), "a retransmitted INVITE starts anew")
        var fresh = TransactionLayer(timers: SIPTimerValues(reliable: false))
        let again = request(.register, branch: "z9hG4bKr2", cseq: 2)
        let (key, effects) = layer.start(again, now: 5)
        let (freshKey, freshEffects) = fresh.start(again, now: 5)
        XCTAssertEqual(key, freshKey)
        XCTAssertEqual(effects, freshEffects)
        XCTAssertEqual(layer.nextDeadline(), fresh.nextDeadline())
        XCTAssertEqual(try XCTUnwrap(layer.receive(response: again.response(200), now: 6)).effects,
                       try XCTUnwrap(fresh.receive(response: again.response(200), now: 6)).effects)
    }
}
