import Dispatch
import EventPolling
import Foundation
import XCTest

/// `ThreadScheduling.fifo`: a thread asked for it runs at SCHED_FIFO with its priority where the process may
/// (CAP_SYS_NICE or an RLIMIT_RTPRIO), keeps SCHED_OTHER and says so where it may not, and the threads it starts
/// run at SCHED_OTHER (reset on fork), so nothing it spawns inherits the right to take a core first.
final class ThreadRealtimeTests: XCTestCase {
    /// Applies `scheduling` on a fresh thread, reads it back there, then starts a thread from it and reads that one.
    private func started(_ scheduling: ThreadScheduling) -> Seen {
        let done = DispatchSemaphore(value: 0)
        let seen = SeenBox()
        let thread = Thread {
            seen.value.took = scheduling.applyToCurrentThread()
            seen.value.policy = ThreadScheduling.currentPolicy()
            seen.value.priority = ThreadScheduling.currentRealtimePriority()
            let child = Thread {
                seen.value.childPolicy = ThreadScheduling.currentPolicy()
                seen.value.childPriority = ThreadScheduling.currentRealtimePriority()
                done.signal()
            }
            child.start()
        }
        thread.start()
        done.wait()
        return seen.value
    }

    func testAFifoThreadRunsAtItsPriorityOrStaysAtTheDefaultWhenNotAllowed() {
        let seen = started(ThreadScheduling(.fifo, nice: 3))
        if seen.took {
            XCTAssertEqual(seen.policy, 1, "SCHED_FIFO")
            XCTAssertEqual(seen.priority, 3)
        } else {
            XCTAssertEqual(seen.policy, 0, "refused: the thread keeps SCHED_OTHER")
            XCTAssertEqual(seen.priority, 0)
        }
    }

    func testAThreadAFifoThreadStartsRunsAtTheDefault() {
        let seen = started(.fifo)
        XCTAssertEqual(seen.childPolicy, 0, "SCHED_RESET_ON_FORK: the child is SCHED_OTHER")
        XCTAssertEqual(seen.childPriority, 0)
    }

    func testTheFifoTextFormsParse() {
        XCTAssertEqual(ThreadScheduling(parsing: "fifo"), .fifo)
        XCTAssertEqual(ThreadScheduling(parsing: "fifo")?.realtimePriority, 1)
        XCTAssertEqual(ThreadScheduling(parsing: "fifo:20")?.realtimePriority, 20)
        XCTAssertEqual(ThreadScheduling(parsing: "fifo:20")?.description, "fifo:20")
        XCTAssertEqual(ThreadScheduling.fifo.description, "fifo")
        XCTAssertEqual(ThreadScheduling.fifo.policy, 1)
        XCTAssertEqual(ThreadScheduling(parsing: "batch:5")?.realtimePriority, 0, "only fifo has one")
        for bad in ["fifo:0", "fifo:100", "fifo/200us", "fifo:1/2ms", "fifo:", "FIFO"] {
            XCTAssertNil(ThreadScheduling(parsing: bad), bad)
        }
    }
}

/// What the started threads read back.
private struct Seen {
    var took = false
    var policy: Int32 = -1
    var priority: Int32 = -1
    var childPolicy: Int32 = -1
    var childPriority: Int32 = -1
}

/// The started threads' readings, written by them before the semaphore the test waits on.
private final class SeenBox: @unchecked Sendable {
    var value = Seen()
}
