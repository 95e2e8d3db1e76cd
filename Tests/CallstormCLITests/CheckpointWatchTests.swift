import EventPolling
import Foundation
import Metrics
import Results
import XCTest
@testable import CallstormCLI

/// The run's live watches: their ticks run on the background thread, at its priority, and stop with `stop`, and one
/// read of the checkpoints goes to every watch still looking (no timed assertions: counts and order only).
final class CheckpointWatchTests: XCTestCase {
    func testATickerRunsOnTheBackgroundThreadAtItsPriorityUntilStopped() {
        let ticked = expectation(description: "three ticks")
        nonisolated(unsafe) var ticks = 0
        nonisolated(unsafe) var policies: Set<Int32> = []
        let ticker = BackgroundTicker(every: 0.01) {
            ticks += 1
            policies.insert(BackgroundThread.currentPolicy())
            if ticks == 3 { ticked.fulfill() }
        }
        wait(for: [ticked], timeout: 30)
        ticker.stop()
        let stoppedAt = BackgroundThread.shared.sync { ticks }
        Thread.sleep(forTimeInterval: 0.05)  // a tick after stop would show up by now; no timing is asserted
        XCTAssertEqual(BackgroundThread.shared.sync { ticks }, stoppedAt)
        XCTAssertEqual(policies, [BackgroundThread.priority.policy])
    }

    func testOneReadGoesToEveryWatchStillLookingAndAWatchWithItsVerdictIsLeftOut() throws {
        let run = FileManager.default.temporaryDirectory.appendingPathComponent("cw-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: run) }
        try FileManager.default.createDirectory(at: RunBundle(run).raw, withIntermediateDirectories: true)
        let files = try RecorderCheckpointer(directory: RunBundle(run).raw, stem: RunBundle.workerRecorderStem(0))
        var recorder = Recorder(runStartNanos: 0)
        recorder.count(Metric(named: "calls.started"), by: 7, atNanos: 1_000_000_000)
        files.checkpoint(&recorder, second: 1)
        files.flush()
        let looked = expectation(description: "the second watch looked three times")
        nonisolated(unsafe) var first = 0
        nonisolated(unsafe) var second: [Int64] = []
        let watch = try XCTUnwrap(CheckpointWatch(runDirectory: run, every: 0.01, checks: [
            { _ in first += 1; return false },
            { recorder in
                second.append(recorder.counters["calls.started"] ?? -1)
                if second.count == 3 { looked.fulfill() }
                return second.count < 3
            },
        ]))
        wait(for: [looked], timeout: 30)
        watch.stop()
        XCTAssertEqual(first, 1)
        XCTAssertEqual(second, [7, 7, 7])
        XCTAssertNil(CheckpointWatch(runDirectory: run, checks: []))
    }
}
