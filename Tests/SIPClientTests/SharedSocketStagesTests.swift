import Dispatch
import EventPolling
@testable import SIPClient
import TestSupport
import XCTest

/// A read of the shared socket handled stage by stage (`SIPClientPool+SharedBatch`): every datagram parsed and
/// given to its agent, then every touched agent's sends queued, then the events told, then one `sendmmsg`; and what
/// commands send outside a read goes out together at the end of the event thread's turn. The 1 s window (longer
/// than the setting allows) keeps what a test sends inside it in one read on any machine.
final class SharedSocketStagesTests: XCTestCase {
    /// Both agents' REGISTERs, by user, as the proxy got them.
    private func registers(_ proxy: UDPProbe) throws -> [String: String] {
        var byUser: [String: String] = [:]
        for _ in 0..<2 {
            let text = String(decoding: try XCTUnwrap(proxy.receive(timeoutMillis: 5_000)).bytes, as: UTF8.self)
            byUser[text.contains("From: <sip:alice@") ? "alice" : "bob"] = text
        }
        return byUser
    }

    func testCommandsSentOutsideAReadGoOutTogetherAtTheTurnsEndAndAClosingPoolSendsWhatWaits() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let world = try SharedSocketWorld(proxyPort: proxy.port)
        defer { world.close() }
        let alice = try world.add("alice", seed: 1), bob = try world.add("bob", seed: 2)
        let waiting = world.queue.sync {
            world.pool.perform(alice) { $0.register(now: $1) }
            world.pool.perform(bob) { $0.register(now: $1) }
            return world.pool.shared?.sends.pending
        }
        XCTAssertEqual(waiting, 2, "both queued for the turn's one sendmmsg, neither sent at once")
        XCTAssertEqual(try registers(proxy).count, 2, "both went out")
        XCTAssertEqual(world.queue.sync { world.pool.shared?.sends.pending }, 0)

        // A command right before the pool closes still goes out: the close sends what waits.
        world.queue.sync {
            world.pool.perform(alice) { $0.register(now: $1) }
            world.pool.closeAll()
        }
        let last = String(decoding: try XCTUnwrap(proxy.receive(timeoutMillis: 5_000)).bytes, as: UTF8.self)
        XCTAssertTrue(last.hasPrefix("REGISTER "), last)
        XCTAssertEqual(world.queue.sync { world.pool.sendErrors }, 0)
    }

    func testEveryAgentsRepliesAreQueuedBeforeAnyEventOfTheReadIsTold() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let world = try SharedSocketWorld(proxyPort: proxy.port)
        defer { world.close() }
        let (alice, bob, port) = try world.aliceAndBob()
        world.queue.sync {
            world.pool.perform(alice) { $0.register(now: $1) }
            world.pool.perform(bob) { $0.register(now: $1) }
        }
        let sent = try registers(proxy)
        let aliceURI = "sip:alice@127.0.0.1:\(port);transport=udp;csdev=\(alice)"
        // A first datagram opens the window; the three sent inside it come in one read, bob's first.
        proxy.send(ProxyMessages.options(to: aliceURI, tag: "s1", proxyPort: proxy.port), toPort: port)
        XCTAssertTrue(eventually { world.reads() == (1, 1) }, "\(world.reads())")
        XCTAssertNotNil(proxy.receive(timeoutMillis: 5_000), "alice's 200 to the first OPTIONS")
        proxy.send(ProxyMessages.okay(try XCTUnwrap(sent["bob"])), toPort: port)
        proxy.send(ProxyMessages.options(to: aliceURI, tag: "s2", proxyPort: proxy.port), toPort: port)
        proxy.send(ProxyMessages.okay(try XCTUnwrap(sent["alice"])), toPort: port)
        XCTAssertTrue(eventually { world.reads() == (2, 4) }, "one read took the three: \(world.reads())")
        let registered = { world.queue.sync { world.told.count { $0.event == .registered(expires: 600) } } }
        XCTAssertTrue(eventually { registered() == 2 })

        let told = world.queue.sync { world.told.filter { $0.event == .registered(expires: 600) } }
        XCTAssertEqual(told.map(\.agent), [bob, alice], "each agent's events, agents in arrival order")
        // Bob came first in the read, yet alice's 200 to the OPTIONS after his datagram already waited to be sent
        // when his event was told: the sends stage ran for every agent before the events stage.
        XCTAssertEqual(told.first?.pending, 1, "\(told)")
        // The 200 went out (the REGISTERs' Timer E retransmissions may come before it: the window held their 200s).
        var replies: [String] = []
        while let got = proxy.receive(timeoutMillis: 5_000), replies.count < 8 {
            replies.append(String(decoding: got.bytes, as: UTF8.self))
            if replies.last?.hasPrefix("SIP/2.0 200 OK") == true { break }
        }
        XCTAssertTrue(replies.last.map { $0.hasPrefix("SIP/2.0 200 OK") && $0.contains("Call-ID: s2@p") } ?? false,
                      "\(replies)")
        XCTAssertEqual(world.queue.sync { world.pool.counters.requestsReceived["OPTIONS"] }, 2)
    }

    func testADatagramThatDoesNotParseIsCountedByItsAgentWhileTheRestOfTheReadGoesOn() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let world = try SharedSocketWorld(proxyPort: proxy.port)
        defer { world.close() }
        let (alice, bob, port) = try world.aliceAndBob()
        let uri = { (id: Int, user: String) in "sip:\(user)@127.0.0.1:\(port);transport=udp;csdev=\(id)" }
        proxy.send(ProxyMessages.options(to: uri(bob, "bob"), tag: "m1", proxyPort: proxy.port), toPort: port)
        XCTAssertTrue(eventually { world.reads() == (1, 1) }, "\(world.reads())")
        // Inside the window: a request line naming alice and then no header at all that parses, and bob's OPTIONS.
        proxy.send(Array("OPTIONS \(uri(alice, "alice")) SIP/2.0\r\nno colon here\r\n\r\n".utf8), toPort: port)
        proxy.send(ProxyMessages.options(to: uri(bob, "bob"), tag: "m2", proxyPort: proxy.port), toPort: port)
        XCTAssertTrue(eventually { world.reads() == (2, 3) }, "\(world.reads())")
        XCTAssertTrue(eventually { world.queue.sync { world.pool.counters.requestsReceived["OPTIONS"] } == 2 })
        try world.queue.sync {
            XCTAssertEqual(try XCTUnwrap(world.pool.agent(alice)).counters.malformed.values.reduce(0, +), 1)
            XCTAssertEqual(try XCTUnwrap(world.pool.agent(bob)).counters.requestsReceived["OPTIONS"], 2)
            XCTAssertTrue(try XCTUnwrap(world.pool.agent(bob)).counters.malformed.isEmpty)
        }
    }
}
