import CLinux
import Dispatch
import EventPolling
@testable import SIPClient
import TestSupport
import XCTest

/// `device.coalesce` on a live pool: a read of the shared socket that carried little leaves the socket unwatched
/// for the window while the loop's timers keep firing, then one read takes all that came; and the events a
/// datagram caused are told with its kernel receive time, not the time the window let it be read. The window here
/// is a second (longer than the setting allows) so that what is sent inside it is inside it on any machine.
final class SharedSocketWindowTests: XCTestCase {
    /// The pool, and what each event was told with: the pool's `eventTime` and the monotonic clock's time.
    private final class World: @unchecked Sendable {
        let queue = DispatchQueue(label: "sip.window.test")
        let thread: EventThread
        var pool: SIPClientPool!
        var told: [(event: SIPEvent, eventTime: UInt64?, at: UInt64)] = []  // on `queue`

        init(proxyPort: Int) throws {
            thread = EventThread(queue: queue, name: "sip.window.events")
            pool = try queue.sync {
                try SIPClientPool(thread: thread, proxyHost: "127.0.0.1", proxyPort: proxyPort) {
                    [unowned self] _, event in told.append((event, pool.eventTime, clinux_monotonic_ns()))
                }
            }
            queue.sync {
                pool.socketsShared = true
                pool.sharedCoalesceNanos = 1_000_000_000
            }
        }

        /// Alice on the shared socket: her id, the socket's port and her Contact's URI (what a proxy sends to).
        func addAlice() throws -> (id: Int, port: Int, uri: String) {
            let id = try queue.sync {
                try pool.add(account: SIPAccount(user: "alice", domain: "127.0.0.1", password: "x"), transport: .udp,
                             seed: 1).get()
            }
            let port = try XCTUnwrap(queue.sync { pool.localPort(id) })
            return (id, port, "sip:alice@127.0.0.1:\(port);transport=udp;csdev=\(id)")
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

    func testAShortReadLeavesTheSocketAloneForTheWindowWhileTimersFireThenOneReadTakesWhatCame() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let world = try World(proxyPort: proxy.port)
        defer { world.close() }
        let (_, port, uri) = try world.addAlice()
        proxy.send(ProxyMessages.options(to: uri, tag: "w1", proxyPort: proxy.port), toPort: port)
        XCTAssertTrue(eventually { world.reads() == (1, 1) }, "\(world.reads())")

        // The window is on: two more wait in the kernel, and a timer due meanwhile fires with them still unread.
        proxy.send(ProxyMessages.options(to: uri, tag: "w2", proxyPort: proxy.port), toPort: port)
        proxy.send(ProxyMessages.options(to: uri, tag: "w3", proxyPort: proxy.port), toPort: port)
        let fired = expectation(description: "a timer inside the window")
        var readsWhenFired = (calls: -1, datagrams: -1)
        var timer: EventTimer?
        world.queue.sync {
            timer = EventTimer(on: world.thread) {
                readsWhenFired = (world.pool.counters.sharedSocket["reads"] ?? 0,
                                  world.pool.counters.sharedSocket["datagrams"] ?? 0)
                fired.fulfill()
            }
            timer?.arm(atMonotonicNanos: clinux_monotonic_ns() + 1_000_000)
        }
        wait(for: [fired], timeout: 5)
        XCTAssertEqual(readsWhenFired.calls, 1, "the timer fired inside the window, the socket unread")
        XCTAssertTrue(eventually { world.reads() == (2, 3) }, "one read after the window took both: \(world.reads())")
        world.queue.sync { timer?.close() }
    }

    func testEventsADatagramCausedAreToldWithItsKernelReceiveTimeNotTheWindowsEnd() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let world = try World(proxyPort: proxy.port)
        defer { world.close() }
        let (alice, port, uri) = try world.addAlice()
        world.queue.sync { world.pool.perform(alice) { $0.register(now: $1) } }
        let register = String(decoding: try XCTUnwrap(proxy.receive(timeoutMillis: 5_000)).bytes, as: UTF8.self)
        // A first datagram opens a window; the 200 sent inside it is read only at its end.
        proxy.send(ProxyMessages.options(to: uri, tag: "w1", proxyPort: proxy.port), toPort: port)
        XCTAssertTrue(eventually { world.reads() == (1, 1) }, "\(world.reads())")
        let before = clinux_monotonic_ns()
        proxy.send(ProxyMessages.okay(register), toPort: port)
        let after = clinux_monotonic_ns()
        XCTAssertTrue(eventually { world.queue.sync { world.told.contains { $0.event == .registered(expires: 600) } } })
        let told = try XCTUnwrap(world.queue.sync { world.told.first { $0.event == .registered(expires: 600) } })
        let arrival = try XCTUnwrap(told.eventTime, "a shared datagram's events carry its arrival")
        // Its arrival is when it was sent (loopback: within the send), give or take the clocks' reads; it was
        // told at the window's end, most of a second later.
        XCTAssertTrue(arrival + 1_000_000 >= before && arrival <= after + 1_000_000, "\(before) \(arrival) \(after)")
        XCTAssertGreaterThan(told.at, after + 500_000_000, "told after the window")
        XCTAssertNil(world.queue.sync { world.pool.eventTime }, "none outside the telling")
    }

    /// A datagram that came in before a command ran but is read after it is told no earlier than the command:
    /// the Driver started an action then, and an event that ends it (a BYE in the socket while the resume timer
    /// fired) must not come out before its start (a negative duration trapped in `RunBooks.finished`).
    func testADatagramReadAfterACommandIsToldNoEarlierThanTheCommand() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let world = try World(proxyPort: proxy.port)
        defer { world.close() }
        let (alice, port, uri) = try world.addAlice()
        world.queue.sync { world.pool.perform(alice) { $0.register(now: $1) } }
        let register = String(decoding: try XCTUnwrap(proxy.receive(timeoutMillis: 5_000)).bytes, as: UTF8.self)
        proxy.send(ProxyMessages.options(to: uri, tag: "w1", proxyPort: proxy.port), toPort: port)
        XCTAssertTrue(eventually { world.reads() == (1, 1) }, "\(world.reads())")
        // The 200 waits in the kernel for the window's end; a command runs meanwhile.
        proxy.send(ProxyMessages.okay(register), toPort: port)
        let sent = clinux_monotonic_ns()
        usleep(2_000)  // the command well after the 200's arrival, on any clock
        let commanded = clinux_monotonic_ns()
        world.queue.sync { world.pool.perform(alice) { _, _ in } }
        XCTAssertTrue(eventually { world.queue.sync { world.told.contains { $0.event == .registered(expires: 600) } } })
        let told = try XCTUnwrap(world.queue.sync { world.told.first { $0.event == .registered(expires: 600) } })
        let at = try XCTUnwrap(told.eventTime)
        XCTAssertGreaterThanOrEqual(at, commanded, "told at the command, not at its arrival (\(sent))")
        XCTAssertLessThanOrEqual(at, told.at)
    }
}
