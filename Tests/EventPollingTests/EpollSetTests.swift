import CLinux
import EventPolling
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The epoll core every event loop shares: a wake from any thread ends a wait with the wake tag, a ready fd comes
/// back under its own tag, and a drained wake no longer counts. Waits use timeout 0 (poll) or a wake already sent,
/// so nothing here depends on time.
final class EpollSetTests: XCTestCase {
    private func pipeFDs() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        return (fds[0], fds[1])
    }

    func testAnEmptySetReportsNothingReady() throws {
        let set = try EpollSet(capacity: 4)
        defer { set.close() }
        XCTAssertEqual(set.wait(timeoutMillis: 0), 0)
    }

    func testAWakeEndsTheWaitUnderTheWakeTagUntilItIsDrained() throws {
        let set = try EpollSet(capacity: 4)
        defer { set.close() }
        set.wake()
        XCTAssertEqual(set.wait(timeoutMillis: -1), 1, "a wake sent before the wait ends it at once")
        XCTAssertEqual(set.tags[0], EpollSet.wakeTag)
        XCTAssertEqual(set.wait(timeoutMillis: 0), 1, "still ready: not drained")
        set.drainWake()
        XCTAssertEqual(set.wait(timeoutMillis: 0), 0)
    }

    func testAWakeFromAnotherThreadEndsAnUnboundedWait() throws {
        let set = try EpollSet(capacity: 4)
        defer { set.close() }
        let thread = Thread { set.wake() }
        thread.start()
        XCTAssertEqual(set.wait(timeoutMillis: -1), 1)
        XCTAssertEqual(set.tags[0], EpollSet.wakeTag)
    }

    func testAReadyFdComesBackUnderItsTagWithItsEvents() throws {
        let set = try EpollSet(capacity: 4)
        defer { set.close() }
        let (r, w) = try pipeFDs()
        defer { close(r); close(w) }
        XCTAssertTrue(set.add(r, events: CLINUX_EPOLLIN, tag: 42))
        XCTAssertEqual(set.wait(timeoutMillis: 0), 0)
        var byte: UInt8 = 1
        XCTAssertEqual(write(w, &byte, 1), 1)
        XCTAssertEqual(set.wait(timeoutMillis: 0), 1)
        XCTAssertEqual(set.tags[0], 42)
        XCTAssertNotEqual(set.events[0] & CLINUX_EPOLLIN, 0)
    }

    func testModifyRetagsAndRemoveForgetsAnFd() throws {
        let set = try EpollSet(capacity: 4)
        defer { set.close() }
        let (r, w) = try pipeFDs()
        defer { close(r); close(w) }
        set.add(r, events: CLINUX_EPOLLIN, tag: 1)
        var byte: UInt8 = 1
        XCTAssertEqual(write(w, &byte, 1), 1)
        XCTAssertTrue(set.modify(r, events: CLINUX_EPOLLIN, tag: 2))
        XCTAssertEqual(set.wait(timeoutMillis: 0), 1)
        XCTAssertEqual(set.tags[0], 2)
        set.remove(r)
        XCTAssertEqual(set.wait(timeoutMillis: 0), 0)
    }

    func testAWaitReturnsAtMostItsLimit() throws {
        let set = try EpollSet(capacity: 4)
        defer { set.close() }
        var pipes: [(Int32, Int32)] = []
        defer { for (r, w) in pipes { close(r); close(w) } }
        for tag in 0..<3 {
            let p = try pipeFDs()
            pipes.append(p)
            set.add(p.read, events: CLINUX_EPOLLIN, tag: UInt64(tag))
            var byte: UInt8 = 1
            XCTAssertEqual(write(p.write, &byte, 1), 1)
        }
        XCTAssertEqual(set.wait(timeoutMillis: 0, limit: 2), 2)
        XCTAssertEqual(set.wait(timeoutMillis: 0), 3)
    }

    func testAnEdgeTriggeredWakeIsReportedOnceWithoutADrainAndAgainAfterTheNextWake() throws {
        let set = try EpollSet(capacity: 4, edgeTriggeredWake: true)
        defer { set.close() }
        set.wake()
        XCTAssertEqual(set.wait(timeoutNanos: -1), 1)
        XCTAssertEqual(set.tags[0], EpollSet.wakeTag)
        XCTAssertEqual(set.wait(timeoutNanos: 0), 0, "reported once, though nothing read the eventfd")
        set.wake()
        set.wake()
        XCTAssertEqual(set.wait(timeoutNanos: 0), 1, "a later wake is a new edge")
        XCTAssertEqual(set.wait(timeoutNanos: 0), 0)
    }

    /// Only lower bounds: a wait may end late on a loaded machine, never before its timeout.
    func testANanosecondTimeoutInsideAMillisecondEndsNoEarlierThanAsked() throws {
        let set = try EpollSet(capacity: 4)
        defer { set.close() }
        XCTAssertEqual(clinux_epoll_wait_ns_fallback(-1), 0, "this kernel has epoll_pwait2 (Linux 5.11)")
        for timeout: Int64 in [1, 50_000, 300_000, 999_999] {
            let start = clinux_monotonic_ns()
            XCTAssertEqual(set.wait(timeoutNanos: timeout), 0)
            XCTAssertGreaterThanOrEqual(clinux_monotonic_ns() - start, UInt64(timeout))
        }
    }

    func testWithoutEpollPwait2TheTimeoutIsRoundedUpToAWholeMillisecond() throws {
        let set = try EpollSet(capacity: 4)
        defer { set.close() }
        _ = clinux_epoll_wait_ns_fallback(1)
        defer { _ = clinux_epoll_wait_ns_fallback(0) }
        let start = clinux_monotonic_ns()
        XCTAssertEqual(set.wait(timeoutNanos: 300_000), 0)
        XCTAssertGreaterThanOrEqual(clinux_monotonic_ns() - start, 1_000_000, "rounded up, never down to a poll")
        set.wake()
        XCTAssertEqual(set.wait(timeoutNanos: 5_000_000_000), 1, "a wake still ends the fallback's wait")
    }

    func testCloseIsSafeToCallTwice() throws {
        let set = try EpollSet(capacity: 1)
        set.close()
        set.close()
    }
}
