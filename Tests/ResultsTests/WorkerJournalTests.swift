import Foundation
import Metrics
import Results
import TestSupport
import RunFormats
import XCTest

final class WorkerJournalTests: XCTestCase {
    func testCheckpointedRecordersAndRowsComeBackFromTheRunDirectory() throws {
        let run = TemporaryDirectory.path("journal")
        defer { TemporaryDirectory.remove(run) }
        var recorders: [Recorder] = []
        for worker in 0..<2 {
            let journal = try WorkerJournal(configuration: .init(directory: run), worker: worker)
            var recorder = Recorder(runStartNanos: 0)
            for i in 0..<10 { recorder.record(Metric(named: "push_to_report"), micros: Int64(100 * (i + 1)), atNanos: UInt64(i) * 1_000_000_000) }
            recorder.count(Metric(named: "calls.started"), by: 10, atNanos: 0)
            journal.action(ActionRow(id: UInt64(worker), kind: "join", step: "f/answer", device: "dev-\(worker)",
                                     conversation: "c", plannedNanos: 1_000, startedNanos: 2_000,
                                     finishedNanos: 1_502_000, outcome: "fulfilled", reason: ""))
            _ = journal.close(recorder)
            recorders.append(recorder)
        }
        let loaded = try RunResults.loadRecorder(run: run)
        XCTAssertEqual(loaded.counters["calls.started"], 20)
        XCTAssertEqual(loaded.histograms["push_to_report"]?.totalCount, 20)
        try RunResults.joinRows(run: run, .actions)
        let lines = try String(contentsOf: run.appendingPathComponent("actions.csv"), encoding: .utf8)
            .split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        XCTAssertEqual(lines[0], Substring(ActionRow.header))
        XCTAssertTrue(lines[1].hasSuffix(",fulfilled,,1.500"), String(lines[1]))
    }

    func testEmptyRunDirectoryIsAClearError() {
        let run = TemporaryDirectory.path("none")
        XCTAssertThrowsError(try RunResults.loadRecorder(run: run)) { error in
            XCTAssertTrue("\(error)".contains("no raw results"))
        }
    }

    /// A burst of checkpoints faster than the writer keeps at most one waiting (the newest), and the snapshot on
    /// disk after close is the last recorder, never an older one that was queued behind it.
    func testCheckpointBurstLeavesTheNewestSnapshotOnDisk() throws {
        let run = TemporaryDirectory.path("journal")
        defer { TemporaryDirectory.remove(run) }
        let journal = try WorkerJournal(configuration: .init(directory: run), worker: 0)
        var recorder = Recorder(runStartNanos: 0)
        for second in 0..<3000 { recorder.record(Metric(named: "push_to_report"), micros: 100, atNanos: UInt64(second) * 1_000_000_000) }
        for i in 1...200 {
            recorder.count(Metric(named: "calls.started"), atNanos: 0)
            journal.checkpoint(&recorder, second: 3000)
            if i == 200 { _ = journal.close(recorder) }
        }
        let loaded = try RunResults.loadRecorder(run: run)
        XCTAssertEqual(loaded.counters["calls.started"], 200)
        XCTAssertEqual(loaded.histograms["push_to_report"]?.totalCount, 3000)
        XCTAssertEqual(loaded.intervals["push_to_report"]?.count, 3000, "every second comes back from the segments")
        XCTAssertEqual(loaded.counterSeries("calls.started").first?.value, 200)
    }
}
