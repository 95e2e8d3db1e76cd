import Checker
import Foundation
import Reports
import TestSupport
import XCTest

/// Scenarios/chaos/redial-storm.yaml with the callstorm binary: the target is killed mid-load, the callers of the
/// dropped calls redial from Recents, and the storm's figures reach summary.json, summary.csv and report.html,
/// while the books balance and the checker blames the server for nothing.
final class RedialStormRunTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try TemporaryDirectory.make("redial-storm") }
    override func tearDownWithError() throws { TemporaryDirectory.remove(dir) }

    func testKilledTargetStartsARedialStormWhoseFiguresAreReportedAndTheServerIsNotBlamed() throws {
        let binary = try XCTUnwrap(ChildProcess.callstormBinary, "make test exports CALLSTORM_BIN")
        let example = ChaosScenarioTests.root.appendingPathComponent("Scenarios/chaos/redial-storm.yaml").path
        let out = dir.appendingPathComponent("run")
        let run = try ChildProcess.run(binary, ["run", example, "--out", out.path, "--quiet"], in: dir, logs: dir,
                                       name: "run", seconds: 180)
        XCTAssertEqual(run.status, 0, run.err)
        let summary = try ReportSummary.decode(from: Data(contentsOf: out.appendingPathComponent("summary.json")))
        let counters = summary.counters
        let storm = try XCTUnwrap(summary.storm, "summary.json has the storm's figures")

        // The redials happened, each a new call of the built-in redial flow whose redial step started a call.
        XCTAssertGreaterThan(storm.redials, 0)
        XCTAssertEqual(storm.redials, counters["redials.after_drop"])
        XCTAssertEqual(storm.redials, counters["flow.redial-from-recents.started"])
        XCTAssertEqual(counters["redials.started"], storm.redials, "no redial was refused: \(counters)")
        XCTAssertEqual(counters["redials.after_drop.planned"], storm.redials, "every scheduled redial started")
        XCTAssertGreaterThan(counters["flow.redial-from-recents.completed"] ?? 0, 0, "some redials got through")

        // The figures are present and plausible.
        XCTAssertEqual(storm.redialsPerSecond.reduce(0, +), storm.redials)
        let killFrom = try XCTUnwrap(storm.killFromSecond)
        let killTo = try XCTUnwrap(storm.killToSecond)
        XCTAssertEqual(killTo - killFrom, 1.5, accuracy: 0.01)
        let firstRedial = try XCTUnwrap(storm.redialsPerSecond.firstIndex { $0 > 0 })
        XCTAssertGreaterThanOrEqual(Double(firstRedial + 1), killFrom, "no redial before the kill")
        XCTAssertEqual(try XCTUnwrap(storm.baselineErrorRate), 0, accuracy: 0.05, "before the kill calls succeed")
        let recovery = try XCTUnwrap(storm.recoverySeconds, "the error rate came back to its baseline")
        XCTAssertGreaterThan(recovery, 0)
        XCTAssertLessThan(recovery, Double(storm.errorRatePerSecond.count) - killTo + 1)
        XCTAssertGreaterThan(storm.errorRatePerSecond.compactMap { $0 }.max() ?? 0, 0.3, "the kill failed calls")
        XCTAssertGreaterThan(try XCTUnwrap(storm.startFulfillment).count, 0)

        // The books balance, and every finding is attributed to the kill: none blames the server.
        let books = try XCTUnwrap(summary.books)
        XCTAssertTrue(books.balanced, "\(books.problems)")
        XCTAssertEqual(books.calls.started, counters["calls.started"])
        XCTAssertEqual(counters["invariant_violations"] ?? 0, 0, "\(summary.notes)")
        let check = try JSONDecoder().decode(CheckReport.self, from: Data(contentsOf: out
            .appendingPathComponent("checker.json")))
        XCTAssertTrue(check.violations.isEmpty, "\(check.violations.map(\.rule))")
        XCTAssertTrue((check.attributed ?? []).allSatisfy { $0.faults.contains { $0.hasPrefix("target.") } },
                      "\((check.attributed ?? []).map(\.faults))")

        let csv = try String(contentsOf: out.appendingPathComponent("summary.csv"), encoding: .utf8)
        for row in ["storm.start.fulfillment,", "storm.redials,", "storm.baseline_error_rate,", "storm.recovery,"] {
            XCTAssertTrue(csv.contains("\n" + row), "summary.csv has \(row)")
        }
        let html = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("id=\"redial-storm\""), "report.html has the Redial storm section")
        XCTAssertTrue(html.contains("\(storm.redials) redials after drops"))
    }
}
