import Determinism
import SIP
import XCTest

/// A transaction lets its request go once it no longer reads it (`SIPMessage.spent`): these pin when, and that each
/// state still does what it did with the request kept (RFC 3261 §17, RFC 6026).
final class TransactionSpentTests: XCTestCase {
    private let ms: UInt64 = 1_000_000
    private let udp = SIPTimerValues(reliable: false)

    private func request(_ method: SIPMethod) -> SIPMessage { SIPMessage.transactionRequest(method) }

    /// Spent: the method kept, nothing else (no header, no body, no Request-URI).
    private func assertSpent(_ m: SIPMessage, _ method: SIPMethod, line: UInt = #line) {
        XCTAssertEqual(m.method, method, line: line)
        XCTAssertNil(m.callID, line: line)
        XCTAssertNil(m.branch, line: line)
        XCTAssertEqual(m.requestURI, "", line: line)
        XCTAssertEqual(m.body, [], line: line)
    }

    func testClientInviteLetsItsRequestGoAt2xxAndStillDeliversA2xxAgainUntilTimerM() {
        let clock = ManualClock()
        var (t, _) = ClientTransaction.start(request(.invite), timers: udp, now: clock.nowNanos())
        let ok = t.request.response(200, toTag: "b")
        XCTAssertEqual(t.receive(ok, now: clock.nowNanos()), [.deliver(ok)])
        XCTAssertEqual(t.state, .accepted)
        assertSpent(t.request, .invite)
        XCTAssertEqual(t.receive(ok, now: clock.nowNanos()), [.deliver(ok)], "a 2xx again reaches the TU")
        clock.advance(by: 32_000 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.terminated], "Timer M")
    }

    func testClientInviteKeepsItsRequestAfterANon2xxToAckItsRetransmissions() {
        let clock = ManualClock()
        let invite = request(.invite)
        var (t, _) = ClientTransaction.start(invite, timers: udp, now: clock.nowNanos())
        let busy = invite.response(486, toTag: "b")
        let first = t.receive(busy, now: clock.nowNanos())
        XCTAssertEqual(t.state, .completed)
        XCTAssertEqual(t.request, invite)
        XCTAssertEqual(t.receive(busy, now: clock.nowNanos()), [first[0]].map {
            guard case .send(let ack, _) = $0 else { return $0 }
            return .send(ack, retransmission: true)
        })
    }

    func testClientNonInviteLetsItsRequestGoAtItsFinalResponse() {
        let clock = ManualClock()
        var (t, _) = ClientTransaction.start(request(.bye), timers: udp, now: clock.nowNanos())
        let ok = t.request.response(200)
        XCTAssertEqual(t.receive(ok, now: clock.nowNanos()), [.deliver(ok)])
        assertSpent(t.request, .bye)
        clock.advance(by: 5_000 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.terminated], "Timer K")
    }

    func testServerNonInviteLetsItsRequestGoButAnswersARetransmissionUntilTimerJ() {
        let clock = ManualClock()
        var t = ServerTransaction(request: request(.bye), timers: udp)
        let ok = t.request.response(200)
        _ = t.respond(ok, now: clock.nowNanos())
        assertSpent(t.request, .bye)
        XCTAssertEqual(t.receive(request(.bye), now: clock.nowNanos()), [.send(ok, retransmission: true)])
        clock.advance(by: 32_000 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.terminated], "Timer J")
    }

    func testServerInviteKeepsItsRequestUntilConfirmedThenLetsItAndItsResponseGo() {
        let clock = ManualClock()
        let invite = request(.invite)
        var t = ServerTransaction(request: invite, timers: udp)
        let busy = invite.response(486, toTag: "b")
        _ = t.respond(busy, now: clock.nowNanos())
        XCTAssertEqual(t.request, invite, "Completed: Timer H's timeout reads it")
        var ack = request(.ack)
        ack.setHeader(.cseq, "1 ACK")
        XCTAssertEqual(t.receive(ack, now: clock.nowNanos()), [])
        XCTAssertEqual(t.state, .confirmed)
        assertSpent(t.request, .invite)
        XCTAssertNil(t.lastResponse)
        XCTAssertEqual(t.receive(request(.invite), now: clock.nowNanos()), [], "Confirmed absorbs a retransmission")
        clock.advance(by: 5_000 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.terminated], "Timer I")
    }

    func testServerInviteAcceptedKeepsItsRequestForTimerL() {
        let clock = ManualClock()
        let invite = request(.invite)
        var t = ServerTransaction(request: invite, timers: udp)
        _ = t.respond(invite.response(200, toTag: "b"), now: clock.nowNanos())
        XCTAssertEqual(t.state, .accepted)
        XCTAssertEqual(t.request, invite)
    }
}
