@testable import CallstormCLI
import Foundation
import Metrics
import Reports
import TestSupport
import XCTest

/// `callstorm report` after a SIGKILL, and `callstorm compare` exit codes, through the callstorm binary.
final class ReportAndCompareCommandTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("cli")
    }

    override func tearDown() { TemporaryDirectory.remove(dir) }

    private var binary: String? {
        ProcessInfo.processInfo.environment["CALLSTORM_BIN"]
            ?? [".build/release/callstorm"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static let longRun = """
        name: killed
        seed: 5
        devices: 60
        push: { deadline: 2s }
        load:
          - hold: { rate: 15/s, for: 60s }
        behavior:
          answer_after: { uniform: [50ms, 150ms] }
          talk: { constant: 300ms }
        drain: 5s
        slo:
          push_to_report.p99: "< 1s"
          delivered_rate_ratio: "> 0.9"
        """

    func testReportAfterSIGKILLRebuildsAValidReportOfEverythingMeasuredUpToTheKill() throws {
        let binary = try XCTUnwrap(binary, "build callstorm first (make test exports CALLSTORM_BIN)")
        let scenario = dir.appendingPathComponent("killed.yaml")
        try Self.longRun.write(to: scenario, atomically: true, encoding: .utf8)
        let run = dir.appendingPathComponent("run")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["run", scenario.path, "--out", run.path, "--quiet"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Registration done, calls and pushes measured, and on disk in checkpoints: what the rebuilt report shows.
        XCTAssertTrue(RunCheckpoints.waitFor(run, callsStarted: 25, callsCompleted: 3, pushReports: 12), "the run measured too little")
        XCTAssertTrue(process.isRunning, "the run must still be going when it is killed")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.appendingPathComponent("report.html").path))

        let written = try ReportCommand.rebuild(run: run)
        let summary = try ReportSummary.decode(from: Data(contentsOf: written.files.summaryJSON))
        XCTAssertTrue(summary.facts.interrupted)
        XCTAssertEqual(summary.facts.scenario, "killed")
        XCTAssertEqual(summary.facts.seed, 5)
        let started = try XCTUnwrap(summary.counters["calls.started"])
        XCTAssertGreaterThan(started, 20, "calls measured before the kill are in the report")
        XCTAssertGreaterThan(summary.metrics["push_to_report"]?.count ?? 0, 10)
        XCTAssertEqual(summary.thresholds?.count, 2, "thresholds come from the run's scenario.yaml")
        XCTAssertFalse(summary.verdict.passed, "a killed run never passes")
        // The books balance as of the last checkpoint: what was in flight then is counted as in flight at stop.
        let books = try XCTUnwrap(summary.books)
        XCTAssertEqual(books.problems, [])
        XCTAssertEqual(books.actions.map(\.kind), ["end", "join", "start"])
        for line in books.actions { XCTAssertEqual(line.started, line.accounted, line.kind) }
        XCTAssertGreaterThan(books.pushes.accepted, 10)
        XCTAssertEqual(books.pushes.accepted + books.pushes.duplicated, books.pushes.fates)
        XCTAssertNil(books.pushes.sent, "the gateway's counters die with the process")
        for name in ["report.html", "summary.csv", "timeseries.csv", "counters.csv", "junit.xml", "actions.csv",
                     "pushes.csv", "hlog/push_to_report.hlog"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: run.appendingPathComponent(name).path), name)
        }
        let html = try String(contentsOf: written.files.html, encoding: .utf8)
        XCTAssertTrue(html.contains("Run interrupted"))
        XCTAssertTrue(html.contains("</html>"))
        // Every row of the joined CSVs is whole, even if the kill cut a line.
        let actions = try String(contentsOf: run.appendingPathComponent("actions.csv"), encoding: .utf8)
        let columns = actions.split(separator: "\n")[0].split(separator: ",", omittingEmptySubsequences: false).count
        for line in actions.split(separator: "\n") {
            XCTAssertEqual(line.split(separator: ",", omittingEmptySubsequences: false).count, columns, String(line))
        }
        // Every threshold held on what was measured: exit as the run would have, interrupted (130), not 1.
        XCTAssertTrue(summary.thresholds?.allSatisfy(\.passed) ?? false)
        XCTAssertEqual(Command.run(["report", run.path]), .interrupted)
    }

    // MARK: - compare

    private func summaryFile(_ name: String, scaleP99 factor: Double = 1) throws -> URL {
        var result = ReportFixturesCLI.result()
        result.facts.scenario = name
        var summary = ReportSummary(result)
        for key in Array(summary.metrics.keys) { summary.metrics[key]!.p99 *= factor }
        let url = dir.appendingPathComponent("\(name).json")
        try summary.encoded().write(to: url)
        return url
    }

    func testCompareFlagsAThirtyPercentP99RegressionWithExitCode1() throws {
        let base = try summaryFile("base")
        let current = try summaryFile("current", scaleP99: 1.3)
        let out = dir.appendingPathComponent("compare.html")
        XCTAssertEqual(Command.run(["compare", base.path, current.path, "--out", out.path, "--quiet"]),
                       .thresholdsFailed)
        let html = try String(contentsOf: out, encoding: .utf8)
        XCTAssertTrue(html.contains("REGRESSION"))
        XCTAssertTrue(html.contains("+30.0%"))
    }

    func testComparePassesAnIdenticalRunWithExitCode0() throws {
        let base = try summaryFile("base")
        let out = dir.appendingPathComponent("compare.html")
        XCTAssertEqual(Command.run(["compare", base.path, base.path, "--out", out.path, "--quiet"]), .passed)
        XCTAssertTrue(try String(contentsOf: out, encoding: .utf8).contains("no regression"))
    }

    func testCompareAllowsARegressionWithinAPerMetricLimit() throws {
        let base = try summaryFile("base")
        let current = try summaryFile("current", scaleP99: 1.3)
        let limits = "10%," + ReportFixturesCLI.result().histograms.keys.map { "\($0).p99=35%" }.joined(separator: ",")
        XCTAssertEqual(Command.run(["compare", base.path, current.path, "--max-regression", limits, "--quiet",
                                    "--out", dir.appendingPathComponent("c.html").path]), .passed)
    }

    func testCompareOfAMissingFileIsAUsageError() {
        XCTAssertEqual(Command.run(["compare", "/nonexistent/a.json", "/nonexistent/b.json"]), .invalidInput)
    }
}
