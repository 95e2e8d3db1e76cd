import Foundation
import Metrics
import RunFormats
import XCTest
@testable import Results
import TestSupport

final class RunResultsTests: XCTestCase {
    private var run: URL!

    override func setUpWithError() throws {
        run = TemporaryDirectory.path("results")
        try FileManager.default.createDirectory(at: WorkerJournal.rawDirectory(run), withIntermediateDirectories: true)
    }

    override func tearDown() { TemporaryDirectory.remove(run) }

    private func write(_ text: String, _ name: String) throws {
        try Data(text.utf8).write(to: WorkerJournal.rawDirectory(run).appendingPathComponent(name))
    }

    func testReplaceFileSwapsInTheWholeNewContentAndLeavesNoTemporaryFile() throws {
        let url = run.appendingPathComponent("report.html")
        try RunResults.replaceFile(url, with: Data("old".utf8))
        try RunResults.replaceFile(url, with: Data(String(repeating: "new ", count: 50_000).utf8))
        XCTAssertEqual(try String(contentsOf: url, encoding: .utf8), String(repeating: "new ", count: 50_000))
        try RunResults.replaceFile(url, with: Data())
        XCTAssertEqual(try Data(contentsOf: url), Data())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run.path).sorted(), ["raw", "report.html"])
        XCTAssertThrowsError(try RunResults.replaceFile(run.appendingPathComponent("missing/x.csv"), with: Data())) {
            // The cause is named (a missing directory), not "unknown error".
            XCTAssertEqual(($0 as? CocoaError)?.code, .fileNoSuchFile)
        }
    }

    func testJoinKeepsOneHeaderAndDropsALineCutByAKill() throws {
        try write("h1,h2\na,1\nb,2\n", "actions-w0.csv")
        try write("h1,h2\nc,3\nd,", "actions-w1.csv")
        try write("h1,h", "actions-w2.csv")
        try RunResults.joinRows(run: run, .actions)
        let joined = try String(contentsOf: run.appendingPathComponent("actions.csv"), encoding: .utf8)
        XCTAssertEqual(joined, "h1,h2\na,1\nb,2\nc,3\n")
    }

    func testLoadMergesWorkerAndHarnessSnapshots() throws {
        var worker = Recorder(runStartNanos: 0)
        worker.record(Metric(named: "push_to_report"), micros: 100, atNanos: 1)
        worker.count(Metric(named: "calls.started"), by: 3, atNanos: 1)
        var harness = Recorder(runStartNanos: 0)
        harness.gauge("harness.rss_mib", value: 42, atNanos: 1)
        RunResults.writeSnapshot(worker, to: WorkerJournal.rawDirectory(run).appendingPathComponent("recorder-w0.json"))
        RunResults.writeSnapshot(harness,
                                 to: WorkerJournal.rawDirectory(run).appendingPathComponent("recorder-harness.json"))
        let merged = try RunResults.loadRecorder(run: run)
        XCTAssertEqual(merged.counters["calls.started"], 3)
        XCTAssertEqual(merged.histograms["push_to_report"]?.totalCount, 1)
        XCTAssertEqual(merged.gaugeSeries("harness.rss_mib").first?.value, 42)
    }

    func testWorkerJournalCheckpointIsReadableWhileTheRunGoesOn() throws {
        let journal = try WorkerJournal(configuration: .init(directory: run), worker: 0)
        var recorder = Recorder(runStartNanos: 0)
        recorder.count(Metric(named: "calls.started"), atNanos: 0)
        journal.action(ActionRow(id: 1, kind: "start", step: "flow/dial", device: "d1", conversation: "c1",
                                 plannedNanos: 0, startedNanos: 1_000, finishedNanos: 2_001_000, outcome: "fulfilled",
                                 reason: ""))
        journal.tick(&recorder, second: 5)
        // The snapshot is written off the worker's queue; wait for it without sleeping on a guess.
        var loaded: Recorder?
        for _ in 0..<200 where loaded == nil {
            loaded = try? RunResults.loadRecorder(run: run)
            if loaded == nil { Thread.sleep(forTimeInterval: 0.01) }
        }
        XCTAssertEqual(loaded?.counters["calls.started"], 1)
        let rows = try String(contentsOf: WorkerJournal.rawDirectory(run).appendingPathComponent("actions-w0.csv"),
                              encoding: .utf8)
        XCTAssertTrue(rows.contains("1,start,flow/dial,d1,c1,0.000000,0.000001,0.002001,fulfilled,,2.000\n"), rows)
        recorder.count(Metric(named: "calls.started"), atNanos: 0)
        _ = journal.close(recorder)
        XCTAssertEqual(try RunResults.loadRecorder(run: run).counters["calls.started"], 2, "close waits for the write")
    }

    func testARunDirectoryWithoutSnapshotsSaysWhatIsMissing() {
        XCTAssertThrowsError(try RunResults.loadRecorder(run: run)) { error in
            XCTAssertTrue("\(error)".contains("raw/recorder-w*.json"))
        }
    }
}
