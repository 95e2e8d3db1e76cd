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
    func testAShortReadLeavesTheSocketAloneForTheWindowWhileTimersFireThenOneReadTakesWhatCame() throws {
        let proxy = try UDPProbe()
        defer { proxy.close() }
        let world = try SharedSocketWorld(proxyPort: proxy.port)
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
        let world = try SharedSocketWorld(proxyPort: proxy.port)
        defer { world.close() }
        // A first datagram opens a window; the 200 sent inside it is read only at its end.
        let (_, port, register) = try world.aliceRegisteringInAWindow(proxy)
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
        let world = try SharedSocketWorld(proxyPort: proxy.port)
        defer { world.close() }
        let (alice, port, register) = try world.aliceRegisteringInAWindow(proxy)
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
