import Foundation
import Determinism
import SIP
import SIPClient
import XCTest

/// Scripted flows between agents under the manual clock (registration with digest, calls, hold, CANCEL, decline,
/// glare, losses, timeouts, stray and malformed requests, over UDP and TCP), every byte each agent sends and every
/// event written to a transcript (CALLSTORM_SIP_TRANSCRIPT names the file): two builds of the agent compared by
/// their transcripts, as issue 31's layering was (the same bytes, the same identifiers in the same order). Run with
/// SWIFT_DETERMINISTIC_HASHING=1: timers due at one instant fire in the transaction tables' order.
final class WireTranscriptTests: XCTestCase {
    private let clock = ManualClock()
    private var out = ""

    private func agent(_ user: String, port: Int, seed: UInt64, transport: SIPTransportKind = .udp,
                       push: Bool = false) -> SIPUserAgent {
        let p = push ? PushContactParameters.apnsVoIP(token: "abcd", team: "T", bundle: "b") : nil
        let a = SIPUserAgent(account: SIPAccount(user: user, domain: "127.0.0.1", password: "a", push: p),
                             transport: transport, localPort: port, seed: seed)
        a.onMessage = { [unowned self] callID, sent, _ in out += "note \(user) \(callID) \(sent)\n" }
        return a
    }

    private func pump(_ agents: [SIPUserAgent], drop: ((SIPMessage) -> Bool)? = nil) {
        var moved = true
        var drop = drop
        while moved {
            moved = false
            for (i, from) in agents.enumerated() {
                for e in from.takeEvents() { out += "event \(i) \(e)\n" }
                for (bytes, to) in from.takeOutbox() {
                    moved = true
                    out += "send \(i) \(to)\n" + String(decoding: bytes, as: UTF8.self) + "\n"
                    if let d = drop, let m = try? SIPParser.parse(datagram: bytes), d(m) {
                        drop = nil
                        continue
                    }
                    for (j, other) in agents.enumerated() where j != i {
                        other.receive(datagram: bytes, source: i + 1, now: clock.nowNanos())
                    }
                }
            }
        }
        for (i, a) in agents.enumerated() { for e in a.takeEvents() { out += "event \(i) \(e)\n" } }
    }

    private func advance(_ agents: [SIPUserAgent], _ nanos: UInt64, drop: ((SIPMessage) -> Bool)? = nil) {
        clock.advance(by: nanos)
        for a in agents { a.advance(to: clock.nowNanos()) }
        pump(agents, drop: drop)
    }

    private func dump(_ c: SIPCounters) -> String {
        func d<K: Comparable>(_ x: [K: Int]) -> String { x.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            .joined(separator: ",") }
        return [d(c.requestsSent), d(c.requestsReceived), d(c.responsesSent), d(c.responsesReceived),
                d(c.retransmissionsSent), d(c.retransmissionsReceived), d(c.malformed), d(c.timeouts), d(c.stray),
                d(c.misdirected)].joined(separator: " | ")
    }

    func testScriptedFlowsTranscript() throws {
        for transport in [SIPTransportKind.udp, .tcp] {
            let alice = agent("alice", port: 5071, seed: 11, transport: transport, push: true)
            let bob = agent("bob", port: 5072, seed: 12, transport: transport)
            let both = [alice, bob]
            var registrar = FakeRegistrar(password: "a")
            alice.register(now: clock.nowNanos())
            for _ in 0..<2 {
                for (bytes, to) in alice.takeOutbox() {
                    out += "send reg \(to)\n" + String(decoding: bytes, as: UTF8.self) + "\n"
                    let reply = try registrar.answer(SIPParser.parse(datagram: bytes))
                    alice.receive(datagram: reply.serialized(), source: 9, now: clock.nowNanos())
                }
            }
            advance(both, 49_000_000_000)
            callFlows(alice, bob)
            out += "counters \(dump(alice.counters)) \(dump(bob.counters)) \(alice.callCount) \(bob.callCount)\n"
        }
        if let path = ProcessInfo.processInfo.environment["CALLSTORM_SIP_TRANSCRIPT"] {
            try out.write(toFile: path, atomically: true, encoding: .utf8)
        }
        XCTAssertFalse(out.isEmpty)
    }

    private func callFlows(_ alice: SIPUserAgent, _ bob: SIPUserAgent) {
        let both = [alice, bob]
        // A call, held, resumed, ended.
        var call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump(both)
        bob.answer(call, now: clock.nowNanos())
        pump(both)
        alice.setHold(call, held: true, now: clock.nowNanos())
        pump(both)
        bob.setHold(call, held: false, now: clock.nowNanos())
        pump(both)
        bob.bye(call, now: clock.nowNanos())
        pump(both)
        advance(both, 40_000_000_000)
        // Cancel; decline; a 200 crossing the CANCEL; glare; a BYE meeting a re-INVITE.
        call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump(both)
        alice.cancel(call, now: clock.nowNanos())
        pump(both)
        call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump(both)
        bob.decline(call, status: 486, now: clock.nowNanos())
        pump(both)
        call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump(both)
        alice.cancel(call, now: clock.nowNanos())
        bob.answer(call, now: clock.nowNanos())
        pump(both)
        call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump(both)
        bob.answer(call, now: clock.nowNanos())
        pump(both)
        alice.setHold(call, held: true, now: clock.nowNanos())
        bob.setHold(call, held: true, now: clock.nowNanos())
        pump(both)
        alice.bye(call, now: clock.nowNanos())
        bob.setHold(call, held: true, now: clock.nowNanos())
        pump(both)
        advance(both, 40_000_000_000)
        lossFlows(alice, bob)
    }

    private func lossFlows(_ alice: SIPUserAgent, _ bob: SIPUserAgent) {
        let both = [alice, bob]
        // Lost INVITE, lost 200, lost ACK, a timed-out INVITE and a misdirected one.
        let call = alice.invite("sip:bob@127.0.0.1:5072", now: clock.nowNanos())
        pump(both, drop: { $0.method == .invite })
        advance(both, 500_000_000)
        bob.answer(call, now: clock.nowNanos())
        pump(both, drop: { $0.method == .ack })
        advance(both, 500_000_000)
        alice.bye(call, now: clock.nowNanos())
        pump(both, drop: { $0.status == 200 })
        advance(both, 500_000_000)
        _ = alice.invite("sip:carol@127.0.0.1:5072", now: clock.nowNanos())
        pump(both)
        _ = alice.invite("sip:nobody@127.0.0.1:5072", now: clock.nowNanos())
        _ = alice.takeOutbox()
        advance(both, 40_000_000_000)
        // OPTIONS, an unknown method, a malformed request, a stray BYE.
        let options = "OPTIONS sip:bob@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKo\r\n"
            + "From: <sip:x@y>;tag=1\r\nTo: <sip:bob@127.0.0.1>\r\nCall-ID: o1\r\nCSeq: 1 OPTIONS\r\n\r\n"
        bob.receive(datagram: Array(options.utf8), source: 7, now: clock.nowNanos())
        bob.receive(datagram: Array(options.replacingOccurrences(of: "OPTIONS", with: "INFO").utf8), source: 7,
                    now: clock.nowNanos())
        bob.receive(datagram: Array(options.replacingOccurrences(of: "Call-ID: o1\r\n", with: "").utf8),
                    source: 7, now: clock.nowNanos())
        bob.receive(datagram: Array(options.replacingOccurrences(of: "OPTIONS", with: "BYE")
            .replacingOccurrences(of: "To: <sip:bob@127.0.0.1>", with: "To: <sip:bob@127.0.0.1>;tag=zz").utf8),
            source: 7, now: clock.nowNanos())
        pump(both)
        advance(both, 40_000_000_000)
    }
}
