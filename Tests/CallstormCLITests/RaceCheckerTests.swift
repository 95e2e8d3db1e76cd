@testable import CallstormCLI
import Checker
import Foundation
import XCTest

/// Race scenarios against the correct reference target find nothing; against each deliberate bug the history
/// checker names the rule that broke.
final class RaceCheckerTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func run(_ scenario: String, bug: String?, seconds: UInt64 = 3) throws -> (CheckReport, [String: Int64]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var yaml = try String(contentsOf: Self.root.appendingPathComponent(scenario), encoding: .utf8)
        if let bug {
            yaml = yaml.replacingOccurrences(of: "target: { embedded: true }",
                                             with: "target: { embedded: true, bugs: [\(bug)] }")
        }
        let file = dir.appendingPathComponent("race.yaml")
        try yaml.write(to: file, atomically: true, encoding: .utf8)
        var options = RunCommand.Options(file: file.path)
        options.out = dir.appendingPathComponent("run").path
        options.quiet = true
        options.durationNanos = seconds * 1_000_000_000
        let outcome = try RunCommand.perform(options)
        guard let check = try HistoryCheck.run(outcome.runDirectory, writeFiles: false) else {
            XCTFail("no history.jsonl")
            throw CocoaError(.fileNoSuchFile)
        }
        return (check.report, outcome.result.recorder.counters)
    }

    func testCorrectTargetPassesBothRaceScenarios() throws {
        for scenario in ["Scenarios/races/merge-vs-end.yaml", "Scenarios/races/unmerge-vs-join.yaml"] {
            let (report, counters) = try run(scenario, bug: nil)
            XCTAssertEqual(report.violations, [], "\(scenario): \(report.violations.prefix(3))")
            XCTAssertGreaterThan(report.operations, 500)
            XCTAssertGreaterThan(counters.filter { $0.key.hasPrefix("race.") }.values.reduce(0, +), 50)
        }
    }

    func testMergeLostUpdateBreaksMergeUnion() throws {
        let (report, _) = try run("Scenarios/races/merge-vs-end.yaml", bug: "merge-lost-update")
        XCTAssertTrue(report.violations.contains { $0.rule == .mergeUnion }, "\(report.countsByRule)")
    }

    func testMergeIgnoringEndedBreaksEndedStaysEnded() throws {
        let (report, _) = try run("Scenarios/races/merge-vs-end.yaml", bug: "merge-ignores-ended")
        XCTAssertTrue(report.violations.contains { $0.rule == .endedStaysEnded }, "\(report.countsByRule)")
    }

    func testUnmergeDroppingJoinBreaksFinalViews() throws {
        let (report, _) = try run("Scenarios/races/unmerge-vs-join.yaml", bug: "unmerge-drops-join")
        XCTAssertTrue(report.violations.contains { $0.rule == .finalViewsAgree || $0.rule == .singleActive },
                      "\(report.countsByRule)")
    }

    func testVersionNotBumpedBreaksVersionsOnlyIncrease() throws {
        let (report, _) = try run("Scenarios/hold-resume.yaml", bug: "version-not-bumped", seconds: 2)
        XCTAssertTrue(report.violations.contains { $0.rule == .versionsIncrease }, "\(report.countsByRule)")
    }
}
