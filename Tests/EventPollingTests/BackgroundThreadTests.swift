import Dispatch
import Foundation
import EventPolling
import XCTest

/// The background thread's scheduling policy: the run's bookkeeping there runs at the priority it was given
/// (SCHED_BATCH unless `CALLSTORM_BACKGROUND_PRIORITY` says otherwise), and an `EventThread` not asked for one
/// keeps the default policy.
final class BackgroundThreadTests: XCTestCase {
    func testTheBackgroundThreadRunsItsWorkAtItsPriority() {
        XCTAssertEqual(BackgroundThread.shared.sync { BackgroundThread.currentPolicy() },
                       BackgroundThread.priority.policy)
        if ProcessInfo.processInfo.environment["CALLSTORM_BACKGROUND_PRIORITY"] == nil {
            XCTAssertEqual(BackgroundThread.priority, .batch)
        }
    }

    func testAnEventThreadTakesThePolicyItIsGivenAndTheDefaultOtherwise() {
        let threads = [ThreadPriority.normal, .batch, .idle].map { priority in
            (priority, EventThread(queue: DispatchQueue(label: "test.\(priority)"), name: "test.\(priority)",
                                   ownsItsWork: true, scheduling: ThreadScheduling(priority)))
        }
        XCTAssertEqual(threads.map { $0.1.sync { BackgroundThread.currentPolicy() } }, [0, 3, 5])
        for (_, thread) in threads {
            thread.stop()
            thread.waitUntilStopped()
        }
    }
}

/// `ThreadScheduling`: the policy and the nice really applied to the thread that asked (read back through the
/// kernel, and from /proc/self/task/TID/stat, which is what top and the measurements read), the text forms the
/// environment variables take, and that the default leaves a thread as it was.
final class ThreadSchedulingTests: XCTestCase {
    /// Fields 19 (nice) and 41 (policy) of /proc/thread-self/stat, read on the calling thread.
    private func statNiceAndPolicy() -> (nice: Int32, policy: Int32)? {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 38, let nice = Int32(fields[16]), let policy = Int32(fields[38]) else { return nil }
        return (nice, policy)
    }

    func testAThreadStartedAtBatchAndNiceRunsThere() {
        let thread = EventThread(queue: DispatchQueue(label: "test.batch5"), name: "test.batch5", ownsItsWork: true,
                                 scheduling: ThreadScheduling(.batch, nice: 5))
        let seen = thread.sync { (ThreadScheduling.currentPolicy(), ThreadScheduling.currentNice(), statNiceAndPolicy()) }
        thread.stop()
        thread.waitUntilStopped()
        XCTAssertEqual(seen.0, 3)
        XCTAssertEqual(seen.1, 5)
        XCTAssertEqual(seen.2?.nice, 5)
        XCTAssertEqual(seen.2?.policy, 3)
    }

    func testApplyingLowersOnlyTheCallingThread() {
        let before = ThreadScheduling.currentNice()
        let thread = EventThread(queue: DispatchQueue(label: "test.apply"), name: "test.apply", ownsItsWork: true)
        let inside = thread.sync { () -> (Bool, Int32, Int32) in
            let applied = ThreadScheduling(.normal, nice: 7).applyToCurrentThread()
            return (applied, ThreadScheduling.currentPolicy(), ThreadScheduling.currentNice())
        }
        thread.stop()
        thread.waitUntilStopped()
        XCTAssertTrue(inside.0)
        XCTAssertEqual(inside.1, 0)
        XCTAssertEqual(inside.2, max(7, before))
        XCTAssertEqual(ThreadScheduling.currentNice(), before, "the test's own thread was left alone")
    }

    func testTheDefaultChangesNothing() {
        let thread = EventThread(queue: DispatchQueue(label: "test.default"), name: "test.default", ownsItsWork: true)
        let seen = thread.sync { statNiceAndPolicy() }
        thread.stop()
        thread.waitUntilStopped()
        XCTAssertEqual(seen?.policy, 0)
        XCTAssertEqual(seen?.nice, ThreadScheduling.currentNice(), "inherits the creating thread's nice")
    }

    func testTheTextFormsParse() {
        XCTAssertEqual(ThreadScheduling(parsing: "batch"), ThreadScheduling(.batch))
        XCTAssertEqual(ThreadScheduling(parsing: "normal:10"), ThreadScheduling(.normal, nice: 10))
        XCTAssertEqual(ThreadScheduling(parsing: "batch:19")?.description, "batch:19")
        XCTAssertEqual(ThreadScheduling(parsing: "idle")?.policy, 5)
        for bad in ["", "fast", "batch:", "batch:20", "batch:-1", "batch:5:1", "Batch"] {
            XCTAssertNil(ThreadScheduling(parsing: bad), bad)
        }
    }
}
