import CLinux
import Dispatch
import EventPolling
import Foundation
import XCTest

/// The event thread that runs a queue's sockets and timers (no timed assertions: only order and counts).
final class EventThreadTests: XCTestCase {
    private let queue = DispatchQueue(label: "test.events")
    private let key = DispatchSpecificKey<Int>()

    override func setUp() { queue.setSpecific(key: key, value: 1) }

    func testATimerFiresOnceOnTheQueueNotBeforeItsDeadline() {
        let events = EventThread(queue: queue, name: "test.events")
        let fired = expectation(description: "fired")
        nonisolated(unsafe) var firedAt: UInt64 = 0
        nonisolated(unsafe) var count = 0
        nonisolated(unsafe) var onQueue = false
        let deadline = clinux_monotonic_ns() + 20_000_000
        nonisolated(unsafe) var timer: EventTimer!
        queue.sync {
            timer = EventTimer(on: events) {
                firedAt = clinux_monotonic_ns()
                onQueue = DispatchQueue.getSpecific(key: self.key) == 1
                count += 1
                fired.fulfill()
            }
            timer.arm(atMonotonicNanos: deadline)
        }
        wait(for: [fired], timeout: 10)
        Thread.sleep(forTimeInterval: 0.05)  // a second expiry would show up by now; no timing is asserted
        queue.sync {
            XCTAssertEqual(count, 1)
            XCTAssertTrue(onQueue)
            XCTAssertGreaterThanOrEqual(firedAt, deadline)
            timer.close()
            events.stop()
        }
    }

    func testADisarmedTimerNeverFiresAndAnEarlierArmReplacesALaterOne() {
        let events = EventThread(queue: queue, name: "test.events")
        let fired = expectation(description: "fired")
        nonisolated(unsafe) var fires: [String] = []
        nonisolated(unsafe) var a: EventTimer!
        nonisolated(unsafe) var b: EventTimer!
        queue.sync {
            a = EventTimer(on: events) { fires.append("a") }
            b = EventTimer(on: events) {
                fires.append("b")
                fired.fulfill()
            }
            a.arm(atMonotonicNanos: clinux_monotonic_ns() + 30_000_000)
            a.disarm()
            b.arm(atMonotonicNanos: clinux_monotonic_ns() + 3_600_000_000_000)
            b.arm(atMonotonicNanos: clinux_monotonic_ns() + 40_000_000)
        }
        wait(for: [fired], timeout: 10)
        Thread.sleep(forTimeInterval: 0.05)
        queue.sync {
            XCTAssertEqual(fires, ["b"])
            a.close()
            b.close()
            events.stop()
        }
    }

    func testAReadyFdReachesItsHandlerOnTheQueueAndBatchDoneFollows() {
        let events = EventThread(queue: queue, name: "test.events")
        let fd = clinux_eventfd()
        let done = expectation(description: "batch done")
        nonisolated(unsafe) var log: [String] = []
        queue.sync {
            let id = events.register(ready: { readyFD, mask in
                XCTAssertEqual(DispatchQueue.getSpecific(key: self.key), 1)
                XCTAssertEqual(readyFD, fd)
                XCTAssertNotEqual(mask & CLINUX_EPOLLIN, 0)
                _ = clinux_eventfd_drain(readyFD)  // level-triggered: consumed, so it is not reported again
                log.append("ready")
            }, batchDone: {
                log.append("done")
                done.fulfill()
            })
            events.add(fd, events: CLINUX_EPOLLIN, handler: id)
        }
        _ = clinux_eventfd_signal(fd)
        wait(for: [done], timeout: 10)
        Thread.sleep(forTimeInterval: 0.05)
        queue.sync {
            XCTAssertEqual(log, ["ready", "done"])
            events.remove(fd)
            events.stop()
        }
        close(fd)
    }

    func testStopFromTheQueueReturnsAndLaterEventsAreNotDelivered() {
        let events = EventThread(queue: queue, name: "test.events")
        let fd = clinux_eventfd()
        nonisolated(unsafe) var delivered = 0
        queue.sync {
            let id = events.register(ready: { readyFD, _ in
                _ = clinux_eventfd_drain(readyFD)
                delivered += 1
            })
            events.add(fd, events: CLINUX_EPOLLIN, handler: id)
            events.stop()  // must not wait for the thread, which may be about to call queue.sync
            events.unregister(id)
        }
        _ = clinux_eventfd_signal(fd)
        Thread.sleep(forTimeInterval: 0.05)
        queue.sync { XCTAssertEqual(delivered, 0) }
        close(fd)
    }

    func testPostedWorkRunsOnTheQueueInOrderFromAnyThreadAndMorePostedWhileRunningRunsToo() {
        let events = EventThread(queue: queue, name: "test.events")
        let done = expectation(description: "all ran")
        let total = 2_000  // more than one batch's share, so the rest must carry over to the next batch
        nonisolated(unsafe) var seen: [Int] = []
        nonisolated(unsafe) var offQueue = 0
        let key = key
        DispatchQueue.global().async {
            for i in 0..<total {
                events.post {
                    if DispatchQueue.getSpecific(key: key) != 1 { offQueue += 1 }
                    seen.append(i)
                    if i == total - 1 {
                        events.post { done.fulfill() }  // posted from the queue itself, while draining
                    }
                }
            }
        }
        wait(for: [done], timeout: 30)
        queue.sync {
            XCTAssertEqual(seen, Array(0..<total))
            XCTAssertEqual(offQueue, 0)
            events.stop()
        }
    }

    func testWorkPostedAfterStopStillRunsOnTheQueue() {
        let events = EventThread(queue: queue, name: "test.events")
        queue.sync { events.stop() }
        // The thread may still be ending: either way the work runs, once, on the queue.
        let ran = expectation(description: "ran")
        nonisolated(unsafe) var onQueue = false
        let key = key
        events.post {
            onQueue = DispatchQueue.getSpecific(key: key) == 1
            ran.fulfill()
        }
        wait(for: [ran], timeout: 10)
        XCTAssertTrue(onQueue)
    }

    // MARK: - Run to completion (`ownsItsWork`, the Driver's workers)

    func testAThreadThatOwnsItsWorkRunsBatchesOffTheQueueAndSyncWaitsForEverythingPostedBefore() {
        let events = EventThread(queue: queue, name: "test.owned", ownsItsWork: true)
        nonisolated(unsafe) var seen: [Int] = []
        nonisolated(unsafe) var onQueue = 0
        let key = key
        for i in 0..<100 {
            events.post {
                if DispatchQueue.getSpecific(key: key) == 1 { onQueue += 1 }
                seen.append(i)
            }
        }
        // The barrier: runs after the 100 posted blocks, on the thread, and hands its value back.
        let (count, name) = events.sync { (seen.count, String(cString: clinux_thread_name())) }
        XCTAssertEqual(count, 100)
        XCTAssertEqual(name, "test.owned")
        XCTAssertEqual(seen, Array(0..<100))
        XCTAssertEqual(onQueue, 0, "no batch runs inside queue.sync when the thread owns its work")
        events.stop()
        events.waitUntilStopped()
    }

    func testSyncOnAThreadThatOwnsItsWorkRethrowsAndStillRunsAfterStop() {
        struct Refused: Error {}
        let events = EventThread(queue: queue, name: "test.owned", ownsItsWork: true)
        XCTAssertThrowsError(try events.sync { throw Refused() }) { XCTAssertTrue($0 is Refused) }
        // Many in a row: the posted block must let go of the caller's closure before the caller returns (the
        // runtime traps a non-escaping closure that outlives its call; a race once every few calls before).
        var sum = 0
        for i in 0..<2_000 { sum += events.sync { i } }
        XCTAssertEqual(sum, 1_999_000)
        events.stop()
        events.waitUntilStopped()
        // Stopped: the work goes to the queue, and `sync` still returns its value.
        XCTAssertEqual(events.sync { 7 }, 7)
    }

    func testAReadyFdOnAThreadThatOwnsItsWorkReachesItsHandlerOnTheThread() {
        let events = EventThread(queue: queue, name: "test.owned", ownsItsWork: true)
        let fd = clinux_eventfd()
        let ready = expectation(description: "ready")
        nonisolated(unsafe) var names: [String] = []
        events.sync {
            let id = events.register(ready: { fd, _ in
                _ = clinux_eventfd_drain(fd)
                names.append(String(cString: clinux_thread_name()))
                ready.fulfill()
            })
            events.add(fd, events: CLINUX_EPOLLIN, handler: id)
        }
        _ = clinux_eventfd_signal(fd)
        wait(for: [ready], timeout: 10)
        XCTAssertEqual(events.sync { names }, ["test.owned"])
        events.sync { events.remove(fd) }
        events.stop()
        events.waitUntilStopped()
        close(fd)
    }
}
