import Credentials
import Determinism
import Dispatch
import EventPolling
import Foundation
import Locking
import SIP
import SIPClient
import StreamIO
import TestSupport
import XCTest

/// Our agents against a real Kamailio (deploy/kamailio/kamailio.cfg) started as a user process: registration
/// with its digest challenge, and a whole call through it, over UDP, TCP and TLS (RFC 3261 §26: Kamailio's TLS
/// listener with a certificate from callstorm's local CA, verified by the agents' OpenSSL sessions).
final class KamailioCallTests: XCTestCase {
    func testTwoAgentsRegisterAndCompleteACallThroughKamailioOverUDP() throws {
        try callThroughKamailio(.udp)
    }

    func testTwoAgentsRegisterAndCompleteACallThroughKamailioOverTCP() throws {
        try callThroughKamailio(.tcp)
    }

    func testTwoAgentsRegisterAndCompleteACallThroughKamailioOverTLS() throws {
        try callThroughKamailio(.tls)
    }

    /// RFC 7118: the Upgrade for `sip`, one message per WebSocket message, Kamailio's alias for the connection
    /// delivering the INVITE back over it.
    func testTwoAgentsRegisterAndCompleteACallThroughKamailioOverWebSocket() throws {
        try callThroughKamailio(.ws)
    }

    func testTwoAgentsRegisterAndCompleteACallThroughKamailioOverSecureWebSocket() throws {
        try callThroughKamailio(.wss)
    }

    /// A CA the agents do not trust: the handshake fails (the proxy's certificate is refused), no REGISTER is
    /// answered, and the agent reports the broken stream instead of hanging.
    func testATLSAgentThatDoesNotTrustTheProxysCertificateNeverRegisters() throws {
        let dir = try TemporaryDirectory.make("sip-tls-untrusted")
        defer { TemporaryDirectory.remove(dir) }
        let server = try LocalCertificateAuthority.ensure(stateDirectory: dir.path + "/server").material
        let other = try LocalCertificateAuthority.ensure(stateDirectory: dir.path + "/other").material
        var options = KamailioOptions()
        options.listeners = KamailioListeners(webSocket: false, secureWebSocket: false,
                                              certificatePath: server.certificatePath, keyPath: server.keyPath)
        let kamailio = try KamailioServer(options: options)
        defer { kamailio.stop() }
        let port = try XCTUnwrap(kamailio.ports.tls)
        let harness = try PoolHarness(proxyPort: port, tls: try ClientTLS(caFile: other.caCertificatePath))
        defer { harness.close() }
        let alice = try harness.add(SIPAccount(user: "alice", domain: "127.0.0.1:\(port)", password: "callstorm"),
                                    .tls, seed: 1)
        harness.perform(alice) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) { harness.counters().transportFailures["tls_certificate"] == 1 },
                      "\(harness.counters().transportFailures) \(harness.events(alice))")
        XCTAssertFalse(harness.events(alice).contains(.registered(expires: 600)))
        XCTAssertEqual(harness.counters().requestsSent["REGISTER"], 1, "one attempt, not a reconnect loop")
    }

    func testCancelDeclineAndHoldResumeWorkThroughKamailio() throws {
        try cancelDeclineAndHold(sharedSocket: false)
    }

    /// `device.sockets: shared`: both agents on one UDP socket, Kamailio's relayed requests (to the registered
    /// Contact, `csdev` parameter included) and its responses (our Via returned) each reaching its own agent.
    func testCancelDeclineAndHoldResumeWorkThroughKamailioOnASharedSocket() throws {
        try cancelDeclineAndHold(sharedSocket: true)
    }

    private func cancelDeclineAndHold(sharedSocket: Bool) throws {
        let kamailio = try KamailioProcess()
        defer { kamailio.stop() }
        let harness = try PoolHarness(proxyPort: kamailio.port)
        defer { harness.close() }
        harness.queue.sync { harness.pool.socketsShared = sharedSocket }
        let domain = "127.0.0.1:\(kamailio.port)"
        let alice = try harness.add(SIPAccount(user: "alice", domain: domain, password: "callstorm"), .udp, seed: 21)
        let bob = try harness.add(SIPAccount(user: "bob", domain: domain, password: "callstorm"), .udp, seed: 22)
        XCTAssertEqual(harness.localPort(alice) == harness.localPort(bob), sharedSocket)
        harness.perform(alice) { $0.register(now: $1) }
        harness.perform(bob) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(bob).contains(.registered(expires: 600)) })

        // The caller cancels while it rings: Kamailio forwards the CANCEL, the callee answers 487.
        var call = ""
        harness.perform(alice) { call = $0.invite("sip:bob@\(domain)", now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(alice).contains(.progress(call: call, status: 180)) })
        harness.perform(alice) { _ = $0.cancel(call, now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(alice).contains(.ended(call: call, reason: .cancelled))
                && harness.events(bob).contains(.ended(call: call, reason: .cancelled))
        }, "\(harness.events(alice)) \(harness.events(bob))")

        // The callee declines: 603 reaches the caller.
        harness.perform(alice) { call = $0.invite("sip:bob@\(domain)", now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(bob).contains(.incoming(call: call, from: "sip:alice@\(domain)"))
        })
        harness.perform(bob) { _ = $0.decline(call, status: 603, now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(alice).contains(.failed(call: call, status: 603)) },
                      "\(harness.events(alice))")

        // Hold and resume by re-INVITE along the recorded route, then BYE.
        harness.perform(alice) { call = $0.invite("sip:bob@\(domain)", now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(bob).contains(.incoming(call: call, from: "sip:alice@\(domain)"))
        })
        harness.perform(bob) { _ = $0.answer(call, now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(alice).contains(.answered(call: call)) })
        harness.perform(alice) { _ = $0.setHold(call, held: true, now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(alice).contains(.hold(call: call, held: true))
                && harness.events(bob).contains(.hold(call: call, held: true))
        }, "\(harness.events(alice)) \(harness.events(bob))")
        harness.perform(alice) { _ = $0.setHold(call, held: false, now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(bob).contains(.hold(call: call, held: false)) })
        harness.perform(bob) { _ = $0.bye(call, now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(alice).contains(.ended(call: call, reason: .remoteBye)) })
        let counters = harness.counters()
        XCTAssertEqual(counters.responsesReceived[487], 1)
        XCTAssertEqual(counters.responsesReceived[603], 1)
        XCTAssertEqual(counters.requestsReceived["CANCEL"], 1)
        XCTAssertNil(counters.stray["no_device"], "every datagram named its agent")
    }

    private func callThroughKamailio(_ transport: SIPTransportKind) throws {
        let dir = try TemporaryDirectory.make("sip-tls")
        defer { TemporaryDirectory.remove(dir) }
        var options = KamailioOptions()
        var tls: ClientTLS?
        if transport != .udp, transport != .tcp {
            let material = try LocalCertificateAuthority.ensure(stateDirectory: dir.path).material
            options.listeners = KamailioListeners(tls: transport == .tls, webSocket: transport == .ws,
                                                  secureWebSocket: transport == .wss,
                                                  certificatePath: material.certificatePath, keyPath: material.keyPath)
            if transport.isSecure { tls = try ClientTLS(caFile: material.caCertificatePath) }
        }
        let kamailio = try KamailioServer(options: options)
        defer { kamailio.stop() }
        let ports = kamailio.ports
        let port = try XCTUnwrap([.tls: ports.tls, .ws: ports.webSocket, .wss: ports.secureWebSocket][transport]
                                    ?? kamailio.port)
        let harness = try PoolHarness(proxyPort: port, tls: tls)
        defer { harness.close() }
        let domain = "127.0.0.1:\(port)"
        let push = PushContactParameters.apnsVoIP(token: String(repeating: "ab", count: 32), team: "ABCD123456",
                                                  bundle: "com.example.app")
        let alice = try harness.add(SIPAccount(user: "alice", domain: domain, password: "callstorm"), transport,
                                    seed: 1)
        let bob = try harness.add(SIPAccount(user: "bob", domain: domain, password: "callstorm", push: push),
                                  transport, seed: 2)
        harness.perform(alice) { $0.register(now: $1) }
        harness.perform(bob) { $0.register(now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(alice).contains(.registered(expires: 600))
                && harness.events(bob).contains(.registered(expires: 600))
        }, "\(harness.events(alice)) \(harness.events(bob))\n\(kamailio.log.suffix(2000))")

        var call = ""
        harness.perform(alice) { call = $0.invite("sip:bob@\(domain)", now: $1) }
        XCTAssertTrue(eventually(10) { harness.events(alice).contains(.progress(call: call, status: 180)) },
                      "\(harness.events(alice)) \(harness.events(bob))")
        XCTAssertTrue(harness.events(bob).contains(.incoming(call: call, from: "sip:alice@\(domain)")))
        harness.perform(bob) { _ = $0.answer(call, now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(alice).contains(.answered(call: call)) && harness.events(bob).contains(.answered(call: call))
        }, "\(harness.events(alice)) \(harness.events(bob))")
        harness.perform(alice) { _ = $0.bye(call, now: $1) }
        XCTAssertTrue(eventually(10) {
            harness.events(alice).contains(.ended(call: call, reason: .localBye))
                && harness.events(bob).contains(.ended(call: call, reason: .remoteBye))
        }, "\(harness.events(alice)) \(harness.events(bob))")
        let counters = harness.counters()
        XCTAssertEqual(counters.responsesReceived[401], 2, "each REGISTER was challenged once")
        XCTAssertEqual(counters.malformed, [:])
        XCTAssertEqual(counters.requestsReceived["INVITE"], 1)
        XCTAssertEqual(counters.requestsReceived["BYE"], 1)
        // A connection's stages, each once per agent: connected, then (TLS, WebSocket) ready; none over UDP.
        for agent in [alice, bob] {
            let stages = harness.events(agent).filter {
                if case .connected = $0 { return true }
                if case .transportReady = $0 { return true }
                return false
            }
            XCTAssertEqual(stages.count, [.udp: 0, .tcp: 1][transport] ?? 2, "\(transport): \(stages)")
            guard transport != .udp else { continue }
            if case .connected = stages.first {} else { XCTFail("connected first: \(stages)") }
        }
        // A closed agent's books stay in the pool's total, its message tally included (added up by its lists at
        // the close and folded in when the total is read).
        harness.close(bob)
        harness.close(alice)
        XCTAssertEqual(harness.counters(), counters, "closing the agents changed the pool's total")
    }
}

/// A pool on its own event thread, with the events each agent reported, for tests that drive it from the test
/// thread.
final class PoolHarness: @unchecked Sendable {
    let queue = DispatchQueue(label: "sip.test")
    let thread: EventThread
    private(set) var pool: SIPClientPool!
    private let log = EventLog()

    init(proxyPort: Int, tls: ClientTLS? = nil, clock: any Clock = MonotonicClock()) throws {
        thread = EventThread(queue: queue, name: "sip.test.events")
        let log = self.log
        pool = try queue.sync {
            try SIPClientPool(thread: thread, proxyHost: "127.0.0.1", proxyPort: proxyPort, clock: clock,
                              tls: tls) { agent, event in
                log.events.withLock { $0[agent, default: []].append(event) }
            }
        }
    }

    /// Agents need distinct seeds: equal seeds give equal Call-IDs and branches, which Kamailio's tmx takes for
    /// retransmissions of one request and drops.
    func add(_ account: SIPAccount, _ transport: SIPTransportKind, seed: UInt64) throws -> Int {
        try queue.sync { try pool.add(account: account, transport: transport, seed: seed).get() }
    }

    func perform(_ agent: Int, _ command: (SIPUserAgent, UInt64) -> Void) {
        queue.sync { pool.perform(agent, command) }
    }

    func events(_ agent: Int) -> [SIPEvent] { log.events.withLock { $0[agent] ?? [] } }

    func counters() -> SIPCounters { queue.sync { pool.counters } }

    func localPort(_ agent: Int) -> Int? { queue.sync { pool.localPort(agent) } }

    /// Closes one agent's socket (a suspended app).
    func close(_ agent: Int) { queue.sync { pool.close(agent) } }

    func close() {
        queue.sync { pool.closeAll() }
        thread.stop()
        thread.waitUntilStopped()
    }
}

/// Events by agent, appended on the event thread and read by the test thread.
final class EventLog: Sendable {
    let events = Mutex<[Int: [SIPEvent]]>([:])
}
