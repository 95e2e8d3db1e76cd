import Foundation
import Determinism
import SIP
import SIPClient
import XCTest

/// Two agents wired back to back by hand (what one sends the other receives, unless a test drops it), under the
/// manual clock: the call flows and the books without sockets.
final class AgentPairTests: XCTestCase {
    private let clock = ManualClock()
    private var alice: SIPUserAgent!
    private var bob: SIPUserAgent!
    private var events: [String: [SIPEvent]] = [:]
    /// Drops the next message matching it (a lost datagram).
    private var drop: ((SIPMessage) -> Bool)?

    override func setUp() {
        alice = SIPUserAgent(account: SIPAccount(user: "alice", domain: "127.0.0.1", password: "a"), transport: .udp,
                             localPort: 5071, seed: 1)
        bob = SIPUserAgent(account: SIPAccount(user: "bob", domain: "127.0.0.1", password: "b"), transport: .udp,
                           localPort: 5072, seed: 2)
    }

    /// Moves messages between the two until both are quiet.
    private func pump() {
        var moved = true
        while moved {
            moved = false
            for (from, to, name) in [(alice!, bob!, "alice"), (bob!, alice!, "bob")] {
                events[name, default: []] += from.takeEvents()
                for (bytes, _) in from.takeOutbox() {
                    moved = true
                    if let message = try? SIPParser.parse(datagram: bytes), let drop, drop(message) {
                        self.drop = nil
                        continue
                    }
                    to.receive(datagram: bytes, source: 1, now: clock.nowNanos())
                }
            }
        }
        events["alice", default: []] += alice.takeEvents()
        events["bob", default: []] += bob.takeEvents()
    }

    private func advance(_ nanos: UInt64) {
        clock.advance(by: nanos)
        alice.advance(to: clock.nowNanos())
        bob.advance(to: clock.nowNanos())
        pump()
    }

    func testCallGoesInviteRingingOkAckAndEndsWithBye() throws {
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        XCTAssertEqual(events["bob"], [.incoming(call: call, from: "sip:alice@127.0.0.1")])
        XCTAssertEqual(events["alice"], [.progress(call: call, status: 180)])
        XCTAssertTrue(bob.answer(call, now: clock.nowNanos()))
        pump()
        XCTAssertEqual(events["alice"]?.last, .answered(call: call))
        XCTAssertEqual(events["bob"]?.last, .answered(call: call), "the callee's call is confirmed by the ACK")
        XCTAssertTrue(alice.bye(call, now: clock.nowNanos()))
        pump()
        XCTAssertEqual(events["alice"]?.last, .ended(call: call, reason: .localBye))
        XCTAssertEqual(events["bob"]?.last, .ended(call: call, reason: .remoteBye))
        XCTAssertEqual(alice.counters.responsesReceived, [100: 1, 180: 1, 200: 2])
        XCTAssertEqual(bob.counters.requestsReceived, ["INVITE": 1, "ACK": 1, "BYE": 1])
        XCTAssertEqual(alice.callCount + bob.callCount, 0)
    }

    func testLostInviteIsRetransmittedOnTimerAAndCounted() {
        drop = { $0.method == .invite }
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        XCTAssertEqual(events["bob"] ?? [], [])
        advance(500_000_000)
        XCTAssertEqual(events["bob"], [.incoming(call: call, from: "sip:alice@127.0.0.1")])
        XCTAssertEqual(alice.counters.retransmissionsSent, ["INVITE": 1])
    }

    func testLostOkIsRetransmittedUntilTheAckArrives() {
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        drop = { $0.status == 200 }
        bob.answer(call, now: clock.nowNanos())
        pump()
        XCTAssertNotEqual(events["alice"]?.last, .answered(call: call))
        advance(500_000_000)
        XCTAssertEqual(events["alice"]?.last, .answered(call: call))
        XCTAssertEqual(events["bob"]?.last, .answered(call: call))
        XCTAssertEqual(bob.counters.retransmissionsSent, ["200": 1])
        advance(4_000_000_000)
        XCTAssertEqual(bob.counters.retransmissionsSent, ["200": 1], "no 2xx retransmission after the ACK")
    }

    func testALostAckIsSentAgainForTheRetransmitted200AndTheCallStaysUp() {
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        drop = { $0.method == .ack }
        bob.answer(call, now: clock.nowNanos())
        pump()
        XCTAssertNotEqual(events["bob"]?.last, .answered(call: call), "the ACK was lost")
        advance(500_000_000)  // Timer G: the 200 again, which the caller must ACK again (§13.2.2.4)
        XCTAssertEqual(events["bob"]?.last, .answered(call: call))
        XCTAssertEqual(alice.counters.retransmissionsSent["ACK"], 1)
        advance(40_000_000_000)
        XCTAssertEqual(alice.callCount + bob.callCount, 2, "no Timer L ends the callee's call")
    }

    /// The pool's total adds each agent's books without folding them: the counts still in the agent's tally and
    /// those already in its books both arrive, once, and the agent's own books read the same afterwards.
    func testAddedCountersAreTheAgentsBooksAndLeaveThemAsTheyWere() {
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        drop = { $0.status == 200 }
        bob.answer(call, now: clock.nowNanos())
        pump()
        advance(500_000_000)  // a retransmitted 200: a book the tally never holds
        var first = SIPCounters(), second = SIPCounters()
        bob.addCounters(to: &first)  // before any read folded bob's tally
        bob.addCounters(to: &second)
        XCTAssertEqual(first.requestsReceived, ["INVITE": 1, "ACK": 1])
        XCTAssertEqual(first.responsesSent, [100: 1, 180: 1, 200: 1])
        XCTAssertEqual(first.retransmissionsSent, ["200": 1])
        XCTAssertEqual(second, first)
        XCTAssertEqual(bob.counters, first)
        var merged = first
        bob.counters.merge(into: &merged)
        XCTAssertEqual(merged.responsesSent, [100: 2, 180: 2, 200: 2])
        XCTAssertEqual(merged.malformed, [:], "an empty book adds no key")
    }

    func testCancelWhileRingingEndsBothEndsAsCancelled() {
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        XCTAssertTrue(alice.cancel(call, now: clock.nowNanos()))
        pump()
        XCTAssertEqual(events["bob"]?.last, .ended(call: call, reason: .cancelled))
        XCTAssertEqual(events["alice"]?.last, .ended(call: call, reason: .cancelled))
        XCTAssertEqual(alice.counters.responsesReceived[487], 1)
        XCTAssertEqual(alice.counters.requestsSent["ACK"], 1, "the 487 is acknowledged by the transaction")
    }

    /// A stale contact's port now held by another agent: the INVITE for the user who slept is not answered there
    /// (the proxy waits for that user's wake REGISTER); the caller's transaction only retransmits.
    func testAnInviteForAnotherUserIsNotAnsweredAndIsCountedMisdirected() {
        let call = alice.invite("sip:carol@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        XCTAssertEqual(events["bob"] ?? [], [], "no incoming call for bob")
        XCTAssertEqual(bob.counters.misdirected, ["INVITE": 1])
        XCTAssertEqual(bob.counters.responsesSent, [:], "no 100, no final response")
        XCTAssertEqual(bob.callCount, 0)
        advance(500_000_000)
        XCTAssertEqual(bob.counters.misdirected, ["INVITE": 2], "its retransmission too")
        XCTAssertEqual(alice.counters.responsesReceived, [:])
        let own = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        XCTAssertEqual(events["bob"]?.last, .incoming(call: own, from: "sip:alice@127.0.0.1"), "its own user's call")
        XCTAssertNotEqual(call, own)
    }

    func testDeclineReachesTheCallerAsItsStatus() {
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        XCTAssertTrue(bob.decline(call, status: 603, now: clock.nowNanos()))
        pump()
        XCTAssertEqual(events["alice"]?.last, .failed(call: call, status: 603))
        XCTAssertEqual(events["bob"]?.last, .ended(call: call, reason: .declined(603)))
        advance(64 * 500_000_000)
        XCTAssertEqual(bob.counters.timeouts, [:], "the ACK reached the callee's transaction: no Timer H")
    }

    func testHoldAndResumeByReinviteReachBothEnds() {
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        bob.answer(call, now: clock.nowNanos())
        pump()
        XCTAssertTrue(alice.setHold(call, held: true, now: clock.nowNanos()))
        pump()
        XCTAssertEqual(events["alice"]?.last, .hold(call: call, held: true))
        XCTAssertEqual(events["bob"]?.last, .hold(call: call, held: true))
        XCTAssertTrue(bob.setHold(call, held: false, now: clock.nowNanos()))
        pump()
        XCTAssertEqual(events["alice"]?.last, .hold(call: call, held: false))
        XCTAssertEqual(events["bob"]?.last, .hold(call: call, held: false))
        advance(40_000_000_000)
        XCTAssertEqual(alice.callCount + bob.callCount, 2, "each re-INVITE's 200 was ACKed: no Timer L ends the call")
        XCTAssertEqual(alice.counters.retransmissionsSent, [:])
        XCTAssertEqual(bob.counters.retransmissionsSent, [:])
        XCTAssertEqual(alice.counters.timeouts, [:])
    }

    func testAnOkThatCrossesTheCancelIsAckedAndTheCallEndedByBye() {
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        XCTAssertTrue(alice.cancel(call, now: clock.nowNanos()))
        XCTAssertTrue(bob.answer(call, now: clock.nowNanos()))  // both leave before either arrives
        pump()
        XCTAssertEqual(bob.counters.responsesSent[487], nil, "a CANCEL does nothing to an answered INVITE")
        XCTAssertEqual(events["alice"]?.suffix(2), [.answered(call: call), .ended(call: call, reason: .localBye)])
        XCTAssertEqual(events["bob"]?.last, .ended(call: call, reason: .remoteBye))
        XCTAssertEqual(alice.counters.requestsSent["ACK"], 1)
        XCTAssertEqual(alice.counters.requestsSent["BYE"], 1)
        XCTAssertEqual(alice.callCount + bob.callCount, 0)
    }

    func testAReinviteThatMeetsAByeAlreadySentIsRefused481AndBothEndsEnd() {
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        bob.answer(call, now: clock.nowNanos())
        pump()
        XCTAssertTrue(alice.bye(call, now: clock.nowNanos()))
        XCTAssertTrue(bob.setHold(call, held: true, now: clock.nowNanos()))
        pump()
        XCTAssertEqual(alice.counters.responsesSent[481], 1, "the caller's session is over once its BYE left")
        XCTAssertEqual(events["alice"]?.last, .ended(call: call, reason: .localBye))
        XCTAssertEqual(events["bob"]?.last, .ended(call: call, reason: .remoteBye))
        advance(40_000_000_000)
        XCTAssertEqual(alice.counters.retransmissionsSent, [:], "the 481 was ACKed by the transaction layer")
        XCTAssertEqual(alice.callCount + bob.callCount, 0)
    }

    func testReinvitesThatCrossAreEachRefused491() {
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        bob.answer(call, now: clock.nowNanos())
        pump()
        XCTAssertTrue(alice.setHold(call, held: true, now: clock.nowNanos()))
        XCTAssertTrue(bob.setHold(call, held: true, now: clock.nowNanos()))
        pump()
        XCTAssertEqual(events["alice"]?.last, .failed(call: call, status: 491))
        XCTAssertEqual(events["bob"]?.last, .failed(call: call, status: 491))
        XCTAssertEqual(alice.callCount + bob.callCount, 2, "glare leaves the call up")
    }

    /// The Driver words them for the history and leaves REGISTER out (`SIPSignaling.historyLabel`).
    func testTheMessagesOfACallAreNotedOnceEachAndRegisterOnlyAsItself() {
        var noted: [String] = []
        alice.onMessage = { _, sent, message in
            let words = message.method?.rawValue ?? "\(message.status ?? 0) \(message.cseq?.method.rawValue ?? "")"
            noted.append((sent ? "> " : "< ") + words)
        }
        alice.register(now: clock.nowNanos())
        _ = alice.takeOutbox()  // the REGISTER goes nowhere: it belongs to no call
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump()
        bob.answer(call, now: clock.nowNanos())
        pump()
        XCTAssertEqual(noted, ["> REGISTER", "> INVITE", "< 100 INVITE", "< 180 INVITE", "< 200 INVITE", "> ACK"])
    }

    func testMalformedRequestIsAnswered400AndGarbageIsDroppedBothCounted() throws {
        let noCallID = "OPTIONS sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKx\r\n"
            + "From: <sip:x@y>;tag=1\r\nTo: <sip:bob@127.0.0.1>\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n"
        bob.receive(datagram: Array(noCallID.utf8), source: 7, now: clock.nowNanos())
        bob.receive(datagram: Array("\u{1}\u{2}garbage".utf8), source: 7, now: clock.nowNanos())
        let out = bob.takeOutbox()
        XCTAssertEqual(out.count, 1)
        XCTAssertEqual(out.first?.to, .source(7))
        XCTAssertEqual(try SIPParser.parse(datagram: out[0].bytes).status, 400)
        XCTAssertEqual(bob.counters.malformed, ["missing_header": 1, "truncated_head": 1])
    }

    func testRegisterAnswersTheDigestChallengeAndRefreshesAtEightyPercentOfTheGrant() throws {
        var registrar = FakeRegistrar(password: "a")
        alice.register(now: clock.nowNanos())
        for _ in 0..<2 {
            for (bytes, _) in alice.takeOutbox() {
                let reply = try registrar.answer(SIPParser.parse(datagram: bytes))
                alice.receive(datagram: reply.serialized(), source: 1, now: clock.nowNanos())
            }
        }
        XCTAssertEqual(alice.takeEvents(), [.registered(expires: 60)])
        XCTAssertEqual(registrar.challenged, 1)
        XCTAssertEqual(registrar.contact.map { PushContactParameters(uri: $0) } ?? nil, nil)
        clock.advance(by: 47_000_000_000)
        alice.advance(to: clock.nowNanos())
        XCTAssertTrue(alice.takeOutbox().filter { (try? SIPParser.parse(datagram: $0.bytes))?.method == .register }
            .isEmpty)
        clock.advance(by: 1_000_000_000)
        alice.advance(to: clock.nowNanos())
        let refresh = try alice.takeOutbox().map { try SIPParser.parse(datagram: $0.bytes) }
            .first { $0.method == .register }
        XCTAssertEqual(refresh?.cseq?.number, 3, "same Call-ID, CSeq raised")
    }
}

/// A registrar that challenges the first REGISTER and checks the digest answer of the second.
struct FakeRegistrar {
    let password: String
    var challenged = 0
    var contact: String?

    mutating func answer(_ request: SIPMessage) throws -> SIPMessage {
        guard let authorization = request.header(.authorization) else {
            challenged += 1
            var challenge = request.response(401, toTag: "r")
            challenge.addHeader(.wwwAuthenticate, "Digest realm=\"test\", nonce=\"n1\", qop=\"auth\"")
            return challenge
        }
        let fields = Dictionary(uniqueKeysWithValues: authorization.dropFirst(7).split(separator: ",").map {
            let pair = $0.split(separator: "=", maxSplits: 1)
            return (pair[0].trimmingCharacters(in: .whitespaces),
                    pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\" ")))
        })
        let expected = DigestCredentials(username: fields["username"] ?? "", password: password).response(
            to: DigestChallenge(realm: "test", nonce: "n1", qop: "auth"), method: "REGISTER", uri: fields["uri"] ?? "",
            nonceCount: UInt32(fields["nc"] ?? "", radix: 16) ?? 0, cnonce: fields["cnonce"] ?? "")
        guard fields["response"] == expected else { return request.response(403, toTag: "r") }
        contact = request.contact?.uri
        var ok = request.response(200, toTag: "r")
        ok.addHeader(.contact, "<\(contact ?? "")>;expires=60")
        return ok
    }
}
