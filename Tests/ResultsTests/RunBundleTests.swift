import Foundation
import Results
import RunFormats
import XCTest

/// The run directory's layout is a contract with users (scripts read actions.csv, CI archives report.html) and
/// with older runs (`callstorm report` rebuilds them): these names must not move by accident.
final class RunBundleTests: XCTestCase {
    private let bundle = RunBundle(URL(fileURLWithPath: "/runs/r1"))

    func testRawResultsLiveUnderRawWithOneFileOfEachKindPerWorker() {
        XCTAssertEqual(bundle.raw.path, "/runs/r1/raw")
        XCTAssertEqual(bundle.workerRows(.actions, worker: 3).path, "/runs/r1/raw/actions-w3.csv")
        XCTAssertEqual(bundle.workerRows(.pushes, worker: 0).path, "/runs/r1/raw/pushes-w0.csv")
        XCTAssertEqual(bundle.workerHistory(1).path, "/runs/r1/raw/history-w1.jsonl")
        XCTAssertEqual(bundle.faultsHistory.lastPathComponent, "history-wfaults.jsonl")
        XCTAssertEqual(RunBundle.snapshotName(stem: RunBundle.workerRecorderStem(2)), "recorder-w2.json")
        XCTAssertEqual(RunBundle.segmentsName(stem: RunBundle.harnessRecorderStem),
                       "recorder-harness.segments.jsonl")
        XCTAssertEqual([bundle.facts, bundle.notes, bundle.races, bundle.faultWindows, bundle.finished].map(\.path),
                       ["/runs/r1/raw/facts.json", "/runs/r1/raw/notes.json", "/runs/r1/raw/races.json",
                        "/runs/r1/raw/fault-windows.json", "/runs/r1/raw/finished"])
    }

    func testFileNamesInRawAreRecognisedByKind() {
        XCTAssertTrue(RunBundle.isWorkerRows("actions-w12.csv", .actions))
        XCTAssertFalse(RunBundle.isWorkerRows("actions-w12.csv", .pushes))
        XCTAssertTrue(RunBundle.isHistoryPart("history-wfaults.jsonl"))
        XCTAssertEqual(RunBundle.recorderStem(ofSnapshot: "recorder-w0.json"), "recorder-w0")
        XCTAssertNil(RunBundle.recorderStem(ofSnapshot: "recorder-w0.segments.jsonl"))
        XCTAssertTrue(RunBundle.isRepro("repro-3.yaml"))
    }

    func testJoinedAndReportFilesSitInTheRunDirectory() {
        XCTAssertEqual([bundle.rows(.actions), bundle.rows(.pushes), bundle.history, bundle.faults, bundle.scenario,
                        bundle.checker, bundle.shardRecord, bundle.reportHTML, bundle.summaryJSON,
                        bundle.violationTimeline(2), bundle.repro(1)].map(\.lastPathComponent),
                       ["actions.csv", "pushes.csv", "history.jsonl", "faults.csv", "scenario.yaml", "checker.json",
                        "shard.json", "report.html", "summary.json", "violation-2.svg", "repro-1.yaml"])
    }

    func testCSVHeadersAreTheColumnsInOrder() {
        XCTAssertEqual(RunBundle.Rows.actions.header,
                       "id,kind,step,device,conversation,planned_s,started_s,finished_s,outcome,reason,latency_ms")
        XCTAssertEqual(RunBundle.Rows.pushes.header,
                       "apns_id,device,type,accepted_s,delivered_s,reported_s,push_to_report_ms,deadline_missed")
        XCTAssertEqual(ActionRow.header, RunBundle.Rows.actions.header)
        XCTAssertEqual(PushRow.header, RunBundle.Rows.pushes.header)
        XCTAssertEqual(RunBundle.faultsHeader, "t_s,window,kind,subject,call,role,seq")
    }
}
