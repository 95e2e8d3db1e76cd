import Determinism
import SIP
import XCTest

/// Every transaction timer of RFC 3261 §17 under the manual clock: the transaction's effects after each step.
final class TransactionTests: XCTestCase {
    private let ms: UInt64 = 1_000_000
    private let udp = SIPTimerValues(reliable: false)
    private let tcp = SIPTimerValues(reliable: true)

    private func request(_ method: SIPMethod) -> SIPMessage { SIPMessage.transactionRequest(method) }

    private func sends(_ effects: [TransactionEffect]) -> [Bool] {
        effects.compactMap { if case .send(_, let again) = $0 { return again } else { return nil } }
    }

    func testInviteTimerARetransmitsAtDoublingIntervalsUntilTimerBTimesOut() {
        let clock = ManualClock()
        var (t, first) = ClientTransaction.start(request(.invite), timers: udp, now: clock.nowNanos())
        XCTAssertEqual(sends(first), [false])
        var retransmissions = 0
        var gaps: [UInt64] = []
        var last = clock.nowNanos()
        var timedOut: SIPTimer?
        while t.state != .terminated, let next = t.nextDeadline {
            clock.advance(to: next)
            for effect in t.advance(to: clock.nowNanos()) {
                if case .send = effect {
                    retransmissions += 1
                    gaps.append((clock.nowNanos() - last) / ms)
                    last = clock.nowNanos()
                }
                if case .timedOut(let timer) = effect { timedOut = timer }
            }
        }
        XCTAssertEqual(gaps.prefix(4), [500, 1000, 2000, 4000])
        XCTAssertEqual(retransmissions, 6, "A fires at 0.5, 1.5, 3.5, 7.5, 15.5, 31.5 s before B at 32 s")
        XCTAssertEqual(timedOut, .b)
    }

    func testProvisionalStopsTimerAAndFinalFailureIsAckedThenTimerDEnds() {
        let clock = ManualClock()
        var (t, _) = ClientTransaction.start(request(.invite), timers: udp, now: clock.nowNanos())
        let invite = t.request
        XCTAssertEqual(t.receive(invite.response(180, toTag: "b"), now: clock.nowNanos()).count, 1)
        XCTAssertEqual(t.state, .proceeding)
        clock.advance(by: 10_000 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [], "no retransmission once proceeding")
        let busy = t.receive(invite.response(486, toTag: "b"), now: clock.nowNanos())
        XCTAssertEqual(sends(busy), [false])
        guard case .send(let ack, _) = busy[0] else { return XCTFail() }
        XCTAssertEqual(ack.method, .ack)
        XCTAssertEqual(ack.cseq, SIPCSeq(1, .ack))
        XCTAssertEqual(ack.to?.tag, "b")
        XCTAssertEqual(sends(t.receive(invite.response(486, toTag: "b"), now: clock.nowNanos())), [true],
                       "a retransmitted final response gets the ACK again")
        clock.advance(by: 32_000 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.terminated], "Timer D")
    }

    /// A proxy forwards every 2xx (RFC 6026 §8.1), one that crossed a CANCEL after the proxy's own 487 too: it
    /// reaches the user, which ACKs it and ends it, while the 487 is ACKed again by the transaction.
    func testA2xxAfterTheFinalFailureStillReachesTheUser() {
        let clock = ManualClock()
        var (t, _) = ClientTransaction.start(request(.invite), timers: udp, now: clock.nowNanos())
        let cancelled = t.request.response(487, toTag: "p")
        XCTAssertEqual(sends(t.receive(cancelled, now: clock.nowNanos())), [false])
        XCTAssertEqual(t.state, .completed)
        let ok = t.request.response(200, toTag: "b")
        XCTAssertEqual(t.receive(ok, now: clock.nowNanos()), [.deliver(ok)])
        XCTAssertEqual(sends(t.receive(cancelled, now: clock.nowNanos())), [true])
    }

    func testInvite2xxGoesToAcceptedAndItsRetransmissionsReachTheUser() {
        let clock = ManualClock()
        var (t, _) = ClientTransaction.start(request(.invite), timers: udp, now: clock.nowNanos())
        let ok = t.request.response(200, toTag: "b")
        XCTAssertEqual(t.receive(ok, now: clock.nowNanos()), [.deliver(ok)])
        XCTAssertEqual(t.receive(ok, now: clock.nowNanos()), [.deliver(ok)])
        clock.advance(by: 32_000 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.terminated], "Timer M")
    }

    func testNonInviteTimerECapsAtT2AndTimerFTimesOut() {
        let clock = ManualClock()
        var (t, _) = ClientTransaction.start(request(.register), timers: udp, now: clock.nowNanos())
        var gaps: [UInt64] = []
        var last = clock.nowNanos()
        var effects: [TransactionEffect] = []
        while t.state != .terminated, let next = t.nextDeadline {
            clock.advance(to: next)
            let now = clock.nowNanos()
            let step = t.advance(to: now)
            if !sends(step).isEmpty { gaps.append((now - last) / ms); last = now }
            effects += step
        }
        XCTAssertEqual(gaps.prefix(6), [500, 1000, 2000, 4000, 4000, 4000])
        XCTAssertEqual(effects.suffix(2), [.timedOut(.f), .terminated])
    }

    func testNonInviteFinalResponseWaitsTimerKOnUDPAndNotOnTCP() {
        let clock = ManualClock()
        for (timers, wait) in [(udp, 5_000 * ms), (tcp, UInt64(0))] {
            var (t, _) = ClientTransaction.start(request(.bye), timers: timers, now: clock.nowNanos())
            let ok = t.request.response(200)
            XCTAssertEqual(t.receive(ok, now: clock.nowNanos()), [.deliver(ok)])
            XCTAssertEqual(t.nextDeadline, clock.nowNanos() + wait)
            XCTAssertEqual(t.receive(ok, now: clock.nowNanos()), [], "absorbed in Completed")
            clock.advance(by: wait)
            XCTAssertEqual(t.advance(to: clock.nowNanos()), [.terminated])
        }
    }

    func testTCPInviteHasNoTimerA() {
        let (t, _) = ClientTransaction.start(request(.invite), timers: tcp, now: 0)
        XCTAssertEqual(t.nextDeadline, 64 * 500 * ms, "only Timer B")
    }

    func testServerInviteFailureRetransmitsOnTimerGUntilAckThenTimerIEnds() {
        let clock = ManualClock()
        var t = ServerTransaction(request: request(.invite), timers: udp)
        let busy = t.request.response(486, toTag: "b")
        XCTAssertEqual(t.respond(busy, now: clock.nowNanos()), [.send(busy, retransmission: false)])
        clock.advance(by: 500 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.send(busy, retransmission: true)])
        XCTAssertEqual(t.receive(request(.invite), now: clock.nowNanos()), [.send(busy, retransmission: true)])
        var ack = request(.ack)
        ack.setHeader(.cseq, "1 ACK")
        XCTAssertEqual(t.receive(ack, now: clock.nowNanos()), [])
        XCTAssertEqual(t.state, .confirmed)
        clock.advance(by: 5_000 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.terminated], "Timer I")
    }

    func testServerInviteWithoutAckTimesOutOnTimerH() {
        let clock = ManualClock()
        var t = ServerTransaction(request: request(.invite), timers: tcp)
        _ = t.respond(t.request.response(603, toTag: "b"), now: clock.nowNanos())
        clock.advance(by: 32_000 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.timedOut(.h), .terminated])
    }

    func testServerInvite2xxIsRetransmittedUntilItsAckArrives() {
        let clock = ManualClock()
        var t = ServerTransaction(request: request(.invite), timers: tcp)
        let ok = t.request.response(200, toTag: "b")
        _ = t.respond(ok, now: clock.nowNanos())
        clock.advance(by: 500 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.send(ok, retransmission: true)], "even over TCP, §13.3.1.4")
        let ack = request(.ack)
        XCTAssertEqual(t.receive(ack, now: clock.nowNanos()), [.deliver(ack), .terminated])
    }

    func testServerInvite2xxWithoutAckEndsOnTimerL() {
        let clock = ManualClock()
        var t = ServerTransaction(request: request(.invite), timers: udp)
        _ = t.respond(t.request.response(200, toTag: "b"), now: clock.nowNanos())
        var effects: [TransactionEffect] = []
        while t.state != .terminated, let next = t.nextDeadline {
            clock.advance(to: next)
            effects += t.advance(to: clock.nowNanos())
        }
        XCTAssertEqual(effects.suffix(2), [.timedOut(.l), .terminated])
    }

    func testServerNonInviteAbsorbsRetransmissionsAndEndsOnTimerJ() {
        let clock = ManualClock()
        var t = ServerTransaction(request: request(.bye), timers: udp)
        XCTAssertEqual(t.receive(request(.bye), now: clock.nowNanos()), [], "nothing to resend while Trying")
        let ok = t.request.response(200)
        _ = t.respond(ok, now: clock.nowNanos())
        XCTAssertEqual(t.receive(request(.bye), now: clock.nowNanos()), [.send(ok, retransmission: true)])
        clock.advance(by: 32_000 * ms)
        XCTAssertEqual(t.advance(to: clock.nowNanos()), [.terminated], "Timer J")
    }
}
