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
                                   ownsItsWork: true, priority: priority))
        }
        XCTAssertEqual(threads.map { $0.1.sync { BackgroundThread.currentPolicy() } }, [0, 3, 5])
        for (_, thread) in threads {
            thread.stop()
            thread.waitUntilStopped()
        }
    }
}
