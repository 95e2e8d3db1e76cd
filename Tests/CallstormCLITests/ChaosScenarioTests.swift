@testable import CallstormCLI
import Checker
import Foundation
import Reports
import RunFormats
import TestSupport
import XCTest

/// Every example under Scenarios/chaos/ runs against the correct reference target: its faults show in faults.csv
/// and the report's fault table, and the verdict blames the server for nothing (0 violations).
final class ChaosScenarioTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("chaos")
    }

    override func tearDownWithError() throws { TemporaryDirectory.remove(dir) }

    private func run(_ file: String, name: String) throws -> (RunCommand.Outcome, ReportSummary, [String]) {
        var options = RunCommand.Options(file: file)
        options.out = dir.appendingPathComponent(name).path
        options.quiet = true
        let outcome = try RunCommand.perform(options)
        let summary = try ReportSummary.decode(from: Data(contentsOf: outcome.runDirectory
            .appendingPathComponent("summary.json")))
        let kinds = FaultRow.rows(fromCSV: try String(contentsOf: outcome.runDirectory
            .appendingPathComponent("faults.csv"), encoding: .utf8)).map(\.kind)
        return (outcome, summary, kinds)
    }

    private func assertExample(_ name: String, injects expected: [String], file: StaticString = #filePath,
                               line: UInt = #line) throws {
        let path = Self.root.appendingPathComponent("Scenarios/chaos/\(name).yaml").path
        let (outcome, summary, kinds) = try run(path, name: name)
        for kind in expected {
            XCTAssertTrue(kinds.contains(kind), "\(name): no \(kind) in faults.csv (\(Set(kinds)))", file: file,
                          line: line)
        }
        XCTAssertEqual(summary.counters["invariant_violations"] ?? 0, 0, "\(name): \(summary.notes)", file: file,
                       line: line)
        XCTAssertEqual(outcome.exitCode, .passed, "\(name): \(summary.verdict.reasons)", file: file, line: line)
        XCTAssertEqual(outcome.result.recorder.counters["calls.started"].map { $0 > 0 }, true, file: file, line: line)
        let html = try String(contentsOf: outcome.runDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("id=\"faults\""), "\(name): the report has a fault table", file: file, line: line)
        XCTAssertTrue(html.contains(expected[0]), "\(name): the fault table names \(expected[0])", file: file,
                      line: line)
    }

    func testPushPathExampleInjectsItsFaultsAndBlamesTheServerForNothing() throws {
        try assertExample("push-path", injects: ["push.error_503", "push.delayed", "push.dropped", "push.duplicated",
                                                 "push.reordered"])
    }

    func testDeviceExampleInjectsItsFaultsAndBlamesTheServerForNothing() throws {
        try assertExample("device", injects: ["device.report_delayed", "device.offline_push_lost",
                                              "device.join_failed", "device.join_delayed"])
    }

    func testNetworkExampleInjectsItsFaultsAndBlamesTheServerForNothing() throws {
        try assertExample("network", injects: ["network.latency", "network.reset_peer", "network.on", "network.off"])
    }

    func testTargetExampleInjectsItsFaultsAndBlamesTheServerForNothing() throws {
        try assertExample("target", injects: ["target.killed", "target.restarted"])
    }

    func testTourAgainstTheCorrectTargetHasNoViolationAndTheLostUpdateBugIsStillFound() throws {
        try assertExample("tour", injects: ["push.error_503", "device.report_delayed", "network.latency",
                                            "target.killed"])
        // The same faults against a target with a lost-update bug in merge: the checker still names it.
        let text = try String(contentsOf: Self.root.appendingPathComponent("Scenarios/chaos/tour.yaml"),
                              encoding: .utf8)
            .replacingOccurrences(of: "target: { embedded: true, process: true }",
                                  with: "target: { embedded: true, process: true, bugs: [merge-lost-update] }")
        let buggy = dir.appendingPathComponent("tour-bug.yaml")
        try text.write(to: buggy, atomically: true, encoding: .utf8)
        let (outcome, summary, _) = try run(buggy.path, name: "tour-bug")
        XCTAssertGreaterThan(summary.counters["invariant_violations.merge-yields-union"] ?? 0, 0, "\(summary.notes)")
        XCTAssertEqual(outcome.exitCode, .thresholdsFailed)
        let check = try JSONDecoder().decode(CheckReport.self, from: Data(contentsOf: outcome.runDirectory
            .appendingPathComponent("checker.json")))
        XCTAssertTrue(check.violations.allSatisfy { $0.rule == .mergeUnion }, "\(check.violations.map(\.rule))")
        XCTAssertTrue(FileManager.default.fileExists(atPath: outcome.runDirectory
            .appendingPathComponent("repro-1.yaml").path))
    }
}
