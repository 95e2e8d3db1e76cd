@testable import CallstormCLI
import Checker
import Foundation
import TestSupport
import XCTest

/// Race scenarios against the correct reference target find nothing; against each deliberate bug the history
/// checker names the rule that broke, and the repro file it writes replays that violation (issue 7, acceptance
/// 1–3). The full 10,000-pair count against the correct target runs in `make bench` (scripts/bench.sh).
// serial: a race opens only when two requests land within the target's window on the real clock, and a repro is
// judged by replaying it; beside other classes' runs the buggy repro's replay once passed (expected thresholds
// failed) while it reproduces alone.
final class RaceCheckerTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private struct Found {
        var check: HistoryCheck.Outcome
        var counters: [String: Int64]
        var runDirectory: URL
    }

    private var directories: [URL] = []

    override func tearDown() {
        for dir in directories { TemporaryDirectory.remove(dir) }
        directories = []
    }

    private func run(_ scenario: String, bug: String?, milliseconds: UInt64 = 3000) throws -> Found {
        let dir = try TemporaryDirectory.make("race")
        directories.append(dir)
        var yaml = try String(contentsOf: Self.root.appendingPathComponent(scenario), encoding: .utf8)
        if let bug {
            yaml = yaml.replacingOccurrences(of: "target: { embedded: true }",
                                             with: "target: { embedded: true, bugs: [\(bug)] }")
        }
        let outcome = try runScenario(yaml, in: dir, file: "race") { $0.durationNanos = milliseconds * 1_000_000 }
        // Checked again exactly as `callstorm check` does, which writes the repro files.
        guard let check = try HistoryCheck.run(outcome.runDirectory) else {
            XCTFail("no history.jsonl")
            throw CocoaError(.fileNoSuchFile)
        }
        return Found(check: check, counters: outcome.result.recorder.counters, runDirectory: outcome.runDirectory)
    }

    static let raceScenarios = ["end-by-both", "merge-same-pair", "merge-vs-end", "merge-vs-merge", "merge-vs-pause",
                                "merge-vs-unmerge", "unmerge-vs-join"]

    func testCorrectTargetPassesEveryRaceScenario() throws {
        let shipped = try FileManager.default.contentsOfDirectory(
            atPath: Self.root.appendingPathComponent("Scenarios/races").path).filter { $0.hasSuffix(".yaml") }
        XCTAssertEqual(shipped.sorted(), Self.raceScenarios.map { $0 + ".yaml" })
        var pairs = 0
        for name in Self.raceScenarios {
            let found = try run("Scenarios/races/\(name).yaml", bug: nil, milliseconds: 1500)
            let report = found.check.report
            XCTAssertEqual(report.violations, [], "\(name): \(report.violations.prefix(3))")
            XCTAssertEqual(report.rulesChecked, Rule.allCases)
            let races = found.check.races
            XCTAssertGreaterThanOrEqual(races.races, 40, name)
            XCTAssertEqual(races.byPair.count, 1, name)
            XCTAssertEqual(races.byOffset.map(\.offsetNanos), Array(stride(from: -5_000_000, through: 5_000_000,
                                                                           by: 1_000_000)), name)
            XCTAssertEqual(Int64(races.races), found.counters.filter { $0.key.hasPrefix("race.") }.values.reduce(0, +))
            XCTAssertFalse(FileManager.default.fileExists(atPath: found.runDirectory.appendingPathComponent(
                "repro-1.yaml").path))
            pairs += races.races
        }
        XCTAssertGreaterThanOrEqual(pairs, 300)
        print("race scenarios against the correct target: \(pairs) conflicting pairs, 0 violations")
    }

    /// Finds the bug by its rule, then replays the repro of that rule the checker suggests 10 times.
    private func findAndReplay(_ scenario: String, bug: String, rule: Rule, pair: String?,
                               milliseconds: UInt64 = 2000) throws {
        let found = try run(scenario, bug: bug, milliseconds: milliseconds)
        let report = found.check.report
        XCTAssertTrue(report.violations.contains { $0.rule == rule }, "\(report.countsByRule)")
        if let pair { XCTAssertEqual(found.check.races.byPair.first?.label, pair) }
        guard let index = found.check.races.likeliestToReplay(rule, in: report),
              let file = found.check.repros[index + 1] else {
            return XCTFail("no repro for \(rule.rawValue): \(found.check.repros.keys.sorted())")
        }
        XCTAssertEqual(file.lastPathComponent, "repro-\(index + 1).yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(text.contains("rule: \(rule.rawValue)"), text)
        XCTAssertTrue(text.contains("bugs: [\(bug)]"), text)
        let tally = try ReplayCommand.replay(file.path, repeat: 10, out: nil)
        XCTAssertGreaterThanOrEqual(tally.reproduced, 9, "\(file.path): \(tally.lines)")
        print("\(bug): \(rule.rawValue) reproduced in \(tally.reproduced) of 10 replays of \(file.lastPathComponent)")
    }

    func testMergeLostUpdateBreaksMergeUnionAndReplays() throws {
        try findAndReplay("Scenarios/races/merge-vs-end.yaml", bug: "merge-lost-update", rule: .mergeUnion,
                          pair: "merge vs end")
    }

    func testMergeIgnoringEndedBreaksEndedStaysEndedAndReplays() throws {
        try findAndReplay("Scenarios/races/merge-vs-end.yaml", bug: "merge-ignores-ended", rule: .endedStaysEnded,
                          pair: "merge vs end")
    }

    func testUnmergeDroppingJoinBreaksFinalViewsAndReplays() throws {
        try findAndReplay("Scenarios/races/unmerge-vs-join.yaml", bug: "unmerge-drops-join", rule: .finalViewsAgree,
                          pair: "unmerge vs join")
    }

    func testVersionNotBumpedBreaksVersionsOnlyIncreaseAndReplays() throws {
        // Every race scenario holds a call before its race; merge-vs-pause also races a pause.
        try findAndReplay("Scenarios/races/merge-vs-pause.yaml", bug: "version-not-bumped", rule: .versionsIncrease,
                          pair: "merge vs pause")
    }

    func testReplayOfARunWithoutTheBugDoesNotReproduce() throws {
        let found = try run("Scenarios/races/merge-vs-end.yaml", bug: "merge-lost-update", milliseconds: 1500)
        // The repro the checker says replays best: the first by name may be an offset that reproduces only
        // sometimes, and a single replay of it once passed on CI.
        guard let index = found.check.races.likeliestToReplay(.mergeUnion, in: found.check.report),
              let file = found.check.repros[index + 1] else {
            return XCTFail("no repro written: \(found.check.repros.keys.sorted())")
        }
        // The same call against the correct target: the violation must not come back, and replay says so.
        let fixed = file.deletingLastPathComponent().appendingPathComponent("fixed.yaml")
        try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "bugs: [merge-lost-update]", with: "bugs: []")
            .write(to: fixed, atomically: true, encoding: .utf8)
        let tally = try ReplayCommand.replay(fixed.path, repeat: 2, out: nil)
        XCTAssertEqual(tally.reproduced, 0, "\(tally.lines)")
        XCTAssertEqual(Command.run(["replay", fixed.path, "--repeat", "1", "--quiet"]), .passed)
        // Exit 1 when any repetition reproduces; three make a miss of a ≥ 90 % repro (findAndReplay's bar) rare.
        XCTAssertEqual(Command.run(["replay", file.path, "--repeat", "3", "--quiet"]), .thresholdsFailed)
        XCTAssertEqual(Command.run(["replay", file.path, "--repeat", "0"]), .invalidInput)
        XCTAssertEqual(Command.run(["replay", Self.root.appendingPathComponent("Scenarios/smoke.yaml").path]),
                       .invalidInput)
    }
}
