import Determinism
@testable import SIPClient
import SIP
import XCTest

/// An agent's transaction layer holding a hundred finished transactions, as a device in the hold bench does (over
/// UDP each lingers 32 s to absorb retransmissions: RFC 3261's Timers D and J, RFC 6026's M): the one a
/// retransmission belongs to still absorbs it, and each timer fires when it did with the tables scanned, under an
/// explicit clock.
final class LingeringTransactionTests: XCTestCase {
    private let second: UInt64 = 1_000_000_000
    private var layer = TransactionLayer(timers: SIPTimerValues(reliable: false))

    private func request(_ method: SIPMethod, branch: String, callID: String = "c1") -> SIPMessage {
        var request = SIPMessage.request(method, uri: "sip:bob@127.0.0.1")
        request.addHeader(.via, "SIP/2.0/UDP 127.0.0.1:5071;branch=\(branch);rport")
        request.addHeader(.from, "<sip:alice@127.0.0.1>;tag=f")
        request.addHeader(.to, "<sip:bob@127.0.0.1>")
        request.addHeader(.callID, callID)
        request.addHeader(.cseq, SIPCSeq(1, method == .ack ? .invite : method).text)
        return request
    }

    /// A hundred finished transactions of each kind, answered one per 10 ms from `now` on: BYEs this agent
    /// answered 200 (Completed, Timer J) and INVITEs it sent that were answered 200 (Accepted, Timer M).
    private func linger(from now: UInt64) {
        for i in 0..<100 {
            let at = now + UInt64(i) * 10_000_000
            let bye = request(.bye, branch: "z9hG4bKpeer\(i)x", callID: "l\(i)")
            _ = layer.respond(bye.response(200), to: bye, source: i, now: at)
            let invite = request(.invite, branch: "z9hG4bKours\(i)y", callID: "l\(i)")
            _ = layer.start(invite, now: at)
            _ = layer.receive(response: invite.response(200, toTag: "t"), now: at)
        }
    }

    func testARetransmittedRequest31sAfterItsFinalResponseIsAbsorbedAmongAHundredLingering() throws {
        linger(from: 0)
        let bye = request(.bye, branch: "z9hG4bKmine", callID: "m")
        let ok = bye.response(200)
        let (key, _) = layer.respond(ok, to: bye, source: 42, now: second)
        linger(from: 2 * second)
        let again = try XCTUnwrap(layer.receive(request: bye, now: 32 * second - 1), "31 s after its 200: still there")
        XCTAssertEqual(again.key, key)
        XCTAssertEqual(again.effects, [.send(ok, retransmission: true)], "the 200 again, to where the BYE came from")
        XCTAssertEqual(layer.source(key), 42)
        let expired = layer.advance(to: 33 * second)
        XCTAssertEqual(expired.filter { $0.key == key }.map { $0.effects }, [[.terminated]], "Timer J at 64·T1")
        XCTAssertEqual(expired.first { $0.key == key }?.source, 42)
        for fired in expired { layer.forget(fired.key) }
        XCTAssertNil(layer.receive(request: bye, now: 33 * second), "gone: a new request")
    }

    func testTheACKOfANon2xxIsSentAgainForEachRetransmissionUntilTimerDAmongAHundredLingering() throws {
        linger(from: 0)
        let invite = request(.invite, branch: "z9hG4bKbusy", callID: "b")
        let (key, _) = layer.start(invite, now: second)
        let busy = invite.response(486, toTag: "t")
        let first = try XCTUnwrap(layer.receive(response: busy, now: second + 1))
        guard case .send(let ack, retransmission: false)? = first.effects.first else {
            return XCTFail("no ACK for the 486: \(first.effects)")
        }
        XCTAssertEqual(ack.method, .ack)
        linger(from: 2 * second)
        let again = try XCTUnwrap(layer.receive(response: busy, now: 32 * second))
        XCTAssertEqual(again.effects, [.send(ack, retransmission: true)])
        XCTAssertEqual(layer.advance(to: 33 * second).filter { $0.key == key }.count, 0, "Timer D: 32 s after")
        XCTAssertEqual(layer.advance(to: 33 * second + 1).filter { $0.key == key }.map { $0.effects }, [[.terminated]])
    }

    /// The layer's timers against what the array tables gave: at every step the next deadline is the earliest of
    /// every transaction's, and an advance fires exactly the due ones, client transactions first, each table's in
    /// the order they were added (the order their effects reach the outbox and the history in).
    func testTimersFireAtTheSameTimesAndInTheSameOrderAsAWalkOverEveryTransaction() throws {
        var random = SeededRandom(seed: 56)
        var now: UInt64 = 0
        var open: [SIPMessage] = [], incoming: [SIPMessage] = []
        for step in 0..<3_000 {
            now += UInt64.random(in: 0..<(second / 4), using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                let method: SIPMethod = Bool.random(using: &random) ? .invite : .bye
                let sent = request(method, branch: "z9hG4bKs\(step)", callID: "s\(step)")
                _ = layer.start(sent, now: now)
                open.append(sent)
            case 1 where !open.isEmpty:
                let sent = open.remove(at: Int.random(in: 0..<open.count, using: &random))
                let status = [100, 180, 200, 486].randomElement(using: &random)!
                _ = layer.receive(response: sent.response(status, toTag: "t"), now: now)
                if status == 100 || status == 180 { open.append(sent) }
            case 2:
                let method: SIPMethod = Bool.random(using: &random) ? .invite : .bye
                let received = request(method, branch: "z9hG4bKr\(step)", callID: "r\(step)")
                _ = layer.respond(received.response(method == .invite ? 180 : 200), to: received, source: step,
                                  now: now)
                if method == .invite { incoming.append(received) }
            case 3 where !incoming.isEmpty:
                let received = incoming.remove(at: Int.random(in: 0..<incoming.count, using: &random))
                _ = layer.respond(received.response([200, 486].randomElement(using: &random)!), to: received,
                                  source: step, now: now)
            default:
                let clients: [(TransactionKey, UInt64?, Int?)] = layer.clients.entries.map {
                    ($0.key, $0.value.nextDeadline, nil)
                }
                let servers: [(TransactionKey, UInt64?, Int?)] = layer.servers.entries.map {
                    ($0.key, $0.value.nextDeadline, layer.source($0.key))
                }
                let walked = clients + servers
                XCTAssertEqual(layer.nextDeadline(), walked.compactMap { $0.1 }.min(), "step \(step)")
                let due = walked.filter { ($0.1 ?? .max) <= now }
                let fired = layer.advance(to: now)
                XCTAssertEqual(fired.map { $0.key }, due.map { $0.0 }, "step \(step)")
                XCTAssertEqual(fired.map { $0.source }, due.map { $0.2 }, "step \(step)")
                for f in fired where f.effects.contains(.terminated) { layer.forget(f.key) }
            }
        }
        XCTAssertGreaterThan(layer.clients.count + layer.servers.count, 50, "transactions lingered meanwhile")
    }
}
