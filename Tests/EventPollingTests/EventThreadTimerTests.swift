import CLinux
import Dispatch
import EventPolling
import Foundation
import XCTest

/// Timers carried by the event thread's wait (`epoll_pwait2`'s timeout to the earliest deadline, no timerfd):
/// never before the deadline, to the nanosecond inside a millisecond, woken by an earlier arm from another
/// thread, in deadline order, without starving ready fds. Only lower bounds on time are asserted.
final class EventThreadTimerTests: XCTestCase {
    private let queue = DispatchQueue(label: "test.timers")

    /// Arms `offsets` one after another, each when the one before has fired; returns (deadline, fired at) pairs.
    private func fireInTurn(_ offsets: [UInt64], on events: EventThread) -> [(UInt64, UInt64)] {
        let done = expectation(description: "all fired")
        nonisolated(unsafe) var seen: [(UInt64, UInt64)] = []
        nonisolated(unsafe) var timer: EventTimer!
        nonisolated(unsafe) var deadline: UInt64 = 0
        events.sync {
            timer = EventTimer(on: events) {
                seen.append((deadline, clinux_monotonic_ns()))
                guard seen.count < offsets.count else { return done.fulfill() }
                deadline = clinux_monotonic_ns() + offsets[seen.count]
                timer.arm(atMonotonicNanos: deadline)
            }
            deadline = clinux_monotonic_ns() + offsets[0]
            timer.arm(atMonotonicNanos: deadline)
        }
        wait(for: [done], timeout: 30)
        events.sync { timer.close() }
        return seen
    }

    func testDeadlinesInsideTheSameMillisecondAreHonouredAndNeverEarly() {
        let events = EventThread(queue: queue, name: "test.timers", ownsItsWork: true)
        defer { events.stop(); events.waitUntilStopped() }
        let offsets: [UInt64] = [1, 1_000, 250_000, 500_000, 999_999, 1_000_001, 1_500_000]
        let seen = fireInTurn(offsets, on: events)
        XCTAssertEqual(seen.count, offsets.count)
        for (deadline, firedAt) in seen { XCTAssertGreaterThanOrEqual(firedAt, deadline) }
    }

    func testWithoutEpollPwait2TimersStillFireAndNeverEarly() {
        _ = clinux_epoll_wait_ns_fallback(1)
        defer { _ = clinux_epoll_wait_ns_fallback(0) }
        let events = EventThread(queue: queue, name: "test.timers", ownsItsWork: true)
        defer { events.stop(); events.waitUntilStopped() }
        let seen = fireInTurn([1, 300_000, 999_999, 1_200_000], on: events)
        XCTAssertEqual(seen.count, 4)
        for (deadline, firedAt) in seen { XCTAssertGreaterThanOrEqual(firedAt, deadline) }
        XCTAssertEqual(clinux_epoll_wait_ns_fallback(-1), 1, "the waits went through epoll_wait")
    }

    func testAnEarlierTimerArmedFromAnotherThreadEndsAWaitPlannedForALaterOne() {
        let events = EventThread(queue: queue, name: "test.timers")
        let fired = expectation(description: "the earlier timer fired")
        nonisolated(unsafe) var late: EventTimer!
        nonisolated(unsafe) var soon: EventTimer!
        nonisolated(unsafe) var log: [String] = []
        queue.sync {
            late = EventTimer(on: events) { log.append("late") }
            soon = EventTimer(on: events) {
                log.append("soon")
                fired.fulfill()
            }
            late.arm(atMonotonicNanos: clinux_monotonic_ns() + 3_600_000_000_000)
        }
        // Let the thread go to sleep for the hour: the arm below comes from outside any turn.
        queue.sync {}
        Thread.sleep(forTimeInterval: 0.02)
        queue.sync { soon.arm(atMonotonicNanos: clinux_monotonic_ns() + 1_000_000) }
        wait(for: [fired], timeout: 30)
        queue.sync {
            XCTAssertEqual(log, ["soon"])
            late.close()
            soon.close()
            events.stop()
        }
    }

    func testTimersDueInTheSameTurnFireInDeadlineOrderAndAClosedOneNever() {
        let events = EventThread(queue: queue, name: "test.timers", ownsItsWork: true)
        defer { events.stop(); events.waitUntilStopped() }
        let done = expectation(description: "fired")
        nonisolated(unsafe) var log: [String] = []
        let timers = events.sync { () -> [EventTimer] in
            let names = ["a", "b", "c", "closed"]
            let made = names.map { name in
                EventTimer(on: events) {
                    log.append(name)
                    if log.count == 3 { done.fulfill() }
                }
            }
            // Long past, all due on the next turn: their order is the deadlines', not the slots'.
            made[0].arm(atMonotonicNanos: 3)
            made[1].arm(atMonotonicNanos: 1)
            made[2].arm(atMonotonicNanos: 2)
            made[3].arm(atMonotonicNanos: 0)
            made[3].close()
            return made
        }
        wait(for: [done], timeout: 30)
        events.sync {
            XCTAssertEqual(log, ["b", "c", "a"])
            for timer in timers { timer.close() }
        }
    }

    func testATimerThatKeepsArmingItselfInThePastDoesNotStarveAReadyFd() {
        let events = EventThread(queue: queue, name: "test.timers", ownsItsWork: true)
        defer { events.stop(); events.waitUntilStopped() }
        let fd = clinux_eventfd()
        defer { close(fd) }
        let ready = expectation(description: "the fd's handler ran")
        nonisolated(unsafe) var fires = 0
        nonisolated(unsafe) var firesBeforeReady = -1
        nonisolated(unsafe) var timer: EventTimer!
        events.sync {
            timer = EventTimer(on: events) {
                fires += 1
                if firesBeforeReady < 0 { timer.arm(atMonotonicNanos: 0) }  // due again at once, until the fd ran
            }
            let id = events.register(ready: { fd, _ in
                _ = clinux_eventfd_drain(fd)
                firesBeforeReady = fires
                ready.fulfill()
            })
            events.add(fd, events: CLINUX_EPOLLIN, handler: id)
            timer.arm(atMonotonicNanos: 0)
        }
        _ = clinux_eventfd_signal(fd)
        wait(for: [ready], timeout: 30)
        events.sync {
            XCTAssertGreaterThan(firesBeforeReady, 0)
            timer.close()
            events.remove(fd)
        }
    }
    /// A timer that comes due while posted blocks run fires before the blocks after it, not after all of them:
    /// a worker back on its core after a while finds a pile of posted pushes, and its due arrival must not wait
    /// behind every one (issue 33, the capacity run's scheduler lag).
    func testATimerDueAmongPostedBlocksFiresBeforeTheLaterOnes() {
        let events = EventThread(queue: queue, name: "test.timers", ownsItsWork: true)
        defer { events.stop(); events.waitUntilStopped() }
        let done = expectation(description: "the last block ran")
        nonisolated(unsafe) var log: [String] = []
        nonisolated(unsafe) var timer: EventTimer!
        events.sync { timer = EventTimer(on: events) { log.append("timer") } }
        // Posted from the thread itself, so the three land in the mailbox together and run as one batch.
        events.post {
            events.post {
                log.append("a")
                timer.arm(atMonotonicNanos: 0)  // due at once
            }
            events.post { log.append("b") }
            events.post {
                log.append("c")
                done.fulfill()
            }
        }
        wait(for: [done], timeout: 30)
        events.sync {
            XCTAssertEqual(log, ["a", "timer", "b", "c"])
            timer.close()
        }
    }
}
