@testable import CallstormCLI
import Foundation
import Metrics
import Reports
import TestSupport
import XCTest

/// SIGINT and SIGTERM through the callstorm binary: arrivals stop, calls in flight get the drain time, the full
/// report is written, the exit code is 130 and every action and push is still accounted for.
final class SignalTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("sig")
    }

    override func tearDown() { TemporaryDirectory.remove(dir) }

    /// Long talk times, so a stop always catches calls mid-conversation; the drain is long enough to matter.
    private static let scenario = """
        name: interrupted
        seed: 9
        devices: 80
        push: { deadline: 2s }
        load:
          - hold: { rate: 15/s, for: 60s }
        behavior:
          answer_after: { uniform: [50ms, 150ms] }
          talk: { uniform: [500ms, 20s] }
        drain: 1s
        action_timeout: 3s
        """

    /// Starts a run and waits until its checkpoints show calls under way and pushes reported (more than the books
    /// assertions below ask for), so the signal always catches calls mid-conversation.
    private func startRun(_ name: String) throws -> (ChildProcess, URL) {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let file = dir.appendingPathComponent("\(name).yaml")
        try Self.scenario.write(to: file, atomically: true, encoding: .utf8)
        let run = dir.appendingPathComponent(name)
        let child = try ChildProcess.start(binary, ["run", file.path, "--out", run.path, "--quiet"], in: dir,
                                           logs: dir, name: name)
        XCTAssertTrue(RunCheckpoints.waitFor(run, callsStarted: 25, callsCompleted: 3, pushReports: 22), "the run measured too little")
        XCTAssertTrue(child.process.isRunning, "the run must still be going when the signal comes")
        return (child, run)
    }

    private func assertCompleteReportWithBalancedBooks(_ run: URL, file: StaticString = #filePath,
                                                       line: UInt = #line) throws {
        let summary = try ReportSummary.decode(from: Data(contentsOf: run.appendingPathComponent("summary.json")))
        XCTAssertTrue(summary.facts.interrupted, file: file, line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: run.appendingPathComponent("raw/finished").path),
                      "the process finished its report itself", file: file, line: line)
        for name in ["report.html", "summary.csv", "junit.xml", "actions.csv", "pushes.csv", "history.jsonl"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: run.appendingPathComponent(name).path), name,
                          file: file, line: line)
        }
        let books = try XCTUnwrap(summary.books, file: file, line: line)
        XCTAssertEqual(books.problems, [], file: file, line: line)
        XCTAssertEqual(books.actions.map(\.kind), ["end", "join", "start"], file: file, line: line)
        for a in books.actions { XCTAssertEqual(a.started, a.accounted, a.kind, file: file, line: line) }
        XCTAssertGreaterThan(books.calls.started, 20, file: file, line: line)
        let p = books.pushes
        XCTAssertEqual(p.sent, (p.gatewayAccepted ?? -1) + (p.rejected ?? -1), file: file, line: line)
        XCTAssertEqual(p.gatewayAccepted, p.accepted, file: file, line: line)
        XCTAssertEqual(p.accepted + p.duplicated, p.fates, file: file, line: line)
        XCTAssertGreaterThan(p.delivered, 20, file: file, line: line)
        let html = try String(contentsOf: run.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("Every action and push is accounted for."), file: file, line: line)
    }

    func testSIGINTMidRunWritesTheCompleteReportExits130AndTheBooksBalance() throws {
        let (child, run) = try startRun("sigint")
        kill(child.process.processIdentifier, SIGINT)
        XCTAssertEqual(child.wait(seconds: 60), 130, child.errorText)
        try assertCompleteReportWithBalancedBooks(run)
        let summary = try ReportSummary.decode(from: Data(contentsOf: run.appendingPathComponent("summary.json")))
        XCTAssertGreaterThan(summary.counters["calls.not_started_at_stop"] ?? 0, 0, "arrivals stopped")
        XCTAssertTrue(summary.notes.contains { $0.contains("Stopped early by a signal") }, "\(summary.notes)")
    }

    func testSecondSIGTERMStopsTheDrainAtOnceAndStillWritesTheReport() throws {
        let (child, run) = try startRun("sigterm")
        kill(child.process.processIdentifier, SIGTERM)
        usleep(100_000)
        kill(child.process.processIdentifier, SIGTERM)
        XCTAssertEqual(child.wait(seconds: 60), 130, child.errorText)
        try assertCompleteReportWithBalancedBooks(run)
        let summary = try ReportSummary.decode(from: Data(contentsOf: run.appendingPathComponent("summary.json")))
        XCTAssertTrue(summary.notes.contains { $0.contains("second signal") }, "\(summary.notes)")
        XCTAssertGreaterThan(summary.books?.calls.inFlightAtStop ?? 0, 0, "talking calls were cut off")
    }
}

/// A run directory whose books do not balance makes `callstorm report` exit 3 and name the book.
final class UnbalancedBooksTests: XCTestCase {
    func testReportOfUnbalancedResultsExits3() throws {
        let run = TemporaryDirectory.path("books")
        defer { TemporaryDirectory.remove(run) }
        try FileManager.default.createDirectory(at: run.appendingPathComponent("raw"), withIntermediateDirectories: true)
        var recorder = Recorder(runStartNanos: 1_000_000_000)
        recorder.count(Metric(named: "action.join.started"), by: 5, atNanos: 1_000_000_000)
        recorder.count(Metric(named: "action.join.fulfilled"), by: 4, atNanos: 1_000_000_000)
        try JSONEncoder().encode(recorder).write(to: run.appendingPathComponent("raw/recorder-w0.json"))
        let written = try ReportCommand.rebuild(run: run)
        XCTAssertFalse(written.books.balanced)
        XCTAssertTrue(written.verdict.reasons.contains { $0.contains("accounting does not balance: action join") },
                      "\(written.verdict.reasons)")
        XCTAssertEqual(Command.run(["report", run.path]), .harnessFailure)
    }
}
