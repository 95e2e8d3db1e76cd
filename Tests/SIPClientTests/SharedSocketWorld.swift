import CLinux
import Dispatch
import EventPolling
@testable import SIPClient
import TestSupport
import XCTest

/// A pool on the shared socket with a 1 s coalescing window (longer than the setting allows, so what a test sends
/// inside it is inside it on any machine), and what each event was told with: its agent, the pool's `eventTime`,
/// the monotonic clock's time, and how many datagrams then waited in the shared socket's send batch. The one rig of
/// SharedSocketWindowTests and SharedSocketStagesTests.
final class SharedSocketWorld: @unchecked Sendable {
    struct Told {
        let agent: Int
        let event: SIPEvent
        let eventTime: UInt64?
        let at: UInt64
        let pending: Int
    }

    let queue = DispatchQueue(label: "sip.shared.test")
    let thread: EventThread
    var pool: SIPClientPool!
    var told: [Told] = []  // on `queue`

    init(proxyPort: Int) throws {
        thread = EventThread(queue: queue, name: "sip.shared.events")
        pool = try queue.sync {
            try SIPClientPool(thread: thread, proxyHost: "127.0.0.1", proxyPort: proxyPort) { [unowned self] id, e in
                told.append(Told(agent: id, event: e, eventTime: pool.eventTime, at: clinux_monotonic_ns(),
                                 pending: pool.shared?.sends.pending ?? -1))
            }
        }
        queue.sync {
            pool.socketsShared = true
            pool.sharedCoalesceNanos = 1_000_000_000
        }
    }

    func add(_ user: String, seed: UInt64) throws -> Int {
        try queue.sync {
            try pool.add(account: SIPAccount(user: user, domain: "127.0.0.1", password: "x"), transport: .udp,
                         seed: seed).get()
        }
    }

    /// Alice on the shared socket: her id, the socket's port and her Contact's URI (what a proxy sends to).
    func addAlice() throws -> (id: Int, port: Int, uri: String) {
        let id = try add("alice", seed: 1)
        let port = try XCTUnwrap(queue.sync { pool.localPort(id) })
        return (id, port, "sip:alice@127.0.0.1:\(port);transport=udp;csdev=\(id)")
    }

    /// Alice and bob on the shared socket, and its port.
    func aliceAndBob() throws -> (alice: Int, bob: Int, port: Int) {
        let alice = try add("alice", seed: 1), bob = try add("bob", seed: 2)
        return (alice, bob, try XCTUnwrap(queue.sync { pool.localPort(alice) }))
    }

    /// Alice registering through `proxy` (her REGISTER, as the proxy got it), with the socket's window opened by a
    /// first OPTIONS: what the proxy sends next waits in the kernel until the window's end.
    func aliceRegisteringInAWindow(_ proxy: UDPProbe) throws -> (id: Int, port: Int, register: String) {
        let (alice, port, uri) = try addAlice()
        queue.sync { pool.perform(alice) { $0.register(now: $1) } }
        let register = String(decoding: try XCTUnwrap(proxy.receive(timeoutMillis: 5_000)).bytes, as: UTF8.self)
        proxy.send(ProxyMessages.options(to: uri, tag: "w1", proxyPort: proxy.port), toPort: port)
        XCTAssertTrue(eventually { self.reads() == (1, 1) }, "\(reads())")
        return (alice, port, register)
    }

    func reads() -> (calls: Int, datagrams: Int) {
        queue.sync { (pool.counters.sharedSocket["reads"] ?? 0, pool.counters.sharedSocket["datagrams"] ?? 0) }
    }

    func close() {
        queue.sync { pool.closeAll() }
        thread.stop()
        thread.waitUntilStopped()
    }
}
