import Determinism
import SIP
import SIPClient
import XCTest

/// A sleeping device's agent is parked at sleep and reopened at its next wake (`SIPClientPool.park`, `reopen`):
/// on its new socket it must be the agent `add` would have opened for the same seed, byte for byte on the wire,
/// with nothing of its last wake left (issue 33).
final class ParkedAgentTests: XCTestCase {
    private let account = SIPAccount(user: "dave", domain: "127.0.0.1", password: "callstorm", expires: 600,
                                     instance: "urn:uuid:00000000-0000-4000-8000-000000000001")

    /// Dave added with seed 7 and his REGISTER sent: his id and the datagram the proxy got.
    private func registered(_ harness: PoolHarness,
                            _ proxy: UDPProbe) throws -> (id: Int, register: (bytes: [UInt8], port: Int)) {
        let id = try harness.add(account, .udp, seed: 7)
        harness.perform(id) { $0.register(now: $1) }
        return (id, try XCTUnwrap(proxy.receive(timeoutMillis: 5_000)))
    }

    func testAReopenedAgentSendsTheREGISTERANewAgentOfItsSeedSendsOnItsNewPort() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let harness = try PoolHarness(proxyPort: proxy.port)
        defer { harness.close() }
        let (first, before) = try registered(harness, proxy)

        harness.queue.sync { harness.pool.park(first) }
        XCTAssertNil(harness.localPort(first), "a parked agent's socket is closed")
        let woken = try XCTUnwrap(harness.queue.sync { harness.pool.reopen(first, seed: 9) }).get()
        XCTAssertNotEqual(woken, first, "a reopened agent takes a new id")
        XCTAssertNil(harness.queue.sync { harness.pool.reopen(first, seed: 9) }, "parked once, reopened once")
        harness.perform(woken) { $0.register(now: $1) }
        let again = try XCTUnwrap(proxy.receive(timeoutMillis: 5_000))

        let fresh = try harness.add(account, .udp, seed: 9)
        harness.perform(fresh) { $0.register(now: $1) }
        let expected = try XCTUnwrap(proxy.receive(timeoutMillis: 5_000))

        XCTAssertNotEqual(again.port, before.port, "a new socket")
        XCTAssertEqual(Self.text(again), Self.text(expected), "the REGISTER of a new agent with the same seed")
        XCTAssertNotEqual(Self.text(again), Self.text(before))
        XCTAssertEqual(harness.counters().requestsSent["REGISTER"], 3, "the parked agent's books stay counted once")
    }

    /// A parked agent keeps its books across its sleeps (they are added up once, when the pool's total is read):
    /// asleep or awake again, each message is in the total once.
    func testAParkedAgentsBooksAreInTheTotalOnceWhetherItSleepsOrWakes() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let harness = try PoolHarness(proxyPort: proxy.port)
        defer { harness.close() }
        let (first, _) = try registered(harness, proxy)
        harness.queue.sync { harness.pool.park(first) }
        XCTAssertEqual(harness.counters().requestsSent["REGISTER"], 1, "asleep, its REGISTER is still counted")
        let woken = try XCTUnwrap(harness.queue.sync { harness.pool.reopen(first, seed: 9) }).get()
        XCTAssertEqual(harness.counters().requestsSent["REGISTER"], 1, "awake again, counted once")
        harness.perform(woken) { $0.register(now: $1) }
        XCTAssertNotNil(proxy.receive(timeoutMillis: 5_000))
        harness.queue.sync { harness.pool.park(woken) }
        harness.close(woken)  // a parked agent is not open: closing its old id changes nothing
        XCTAssertEqual(harness.counters().requestsSent["REGISTER"], 2, "both wakes' REGISTERs, each once")
    }

    func testAReopenedAgentKeepsNoTransactionOrRegistrationOfItsLastWake() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let harness = try PoolHarness(proxyPort: proxy.port)
        defer { harness.close() }
        let first = try harness.add(account, .udp, seed: 7)
        harness.perform(first) { $0.register(now: $1) }  // never answered: its transaction and Timer E wait
        XCTAssertNotNil(proxy.receive(timeoutMillis: 5_000))
        XCTAssertNotNil(harness.queue.sync { harness.pool.agent(first)?.nextDeadline })

        harness.queue.sync { harness.pool.park(first) }
        let woken = try XCTUnwrap(harness.queue.sync { harness.pool.reopen(first, seed: 7) }).get()
        harness.queue.sync {
            let agent = harness.pool.agent(woken)
            XCTAssertNil(agent?.nextDeadline, "no transaction, refresh or recovery left")
            XCTAssertNil(agent?.registrationCallID, "the next REGISTER starts a new registration")
            XCTAssertEqual(agent?.callCount, 0)
        }
        XCTAssertNil(proxy.receive(timeoutMillis: 700), "the old REGISTER is not sent again by its Timer E")
    }

    /// The datagram as text with its sender's port written as `PORT` (Via, Contact and Call-ID name it).
    private static func text(_ datagram: (bytes: [UInt8], port: Int)) -> String {
        String(decoding: datagram.bytes, as: UTF8.self).replacingOccurrences(of: "127.0.0.1:\(datagram.port)",
                                                                           with: "127.0.0.1:PORT")
    }
}
