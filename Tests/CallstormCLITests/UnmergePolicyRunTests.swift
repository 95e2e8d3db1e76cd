@testable import CallstormCLI
import CallModel
import Checker
import Foundation
import HistoryLoading
import HTTPServer
import ReferenceTarget
import Results
import Scenario
import TestSupport
import XCTest

extension ReferenceTarget: TestCallServer {}

/// Issue 27, acceptance 2: a server whose unmerge leaves the splitter active with the split member and held in
/// the group (the reference target in `hold-group` mode, the seed session's story) is judged by invariants, not by
/// the reference target's own choice: every built-in flow and the unmerge race pass once its policy is declared,
/// and the policy rule is skipped, and says so, when it is not. The planted unmerge bug is still found.
final class UnmergePolicyRunTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private var directories: [URL] = []

    override func tearDown() {
        for dir in directories { TemporaryDirectory.remove(dir) }
        directories = []
    }

    private func directory() throws -> URL {
        let dir = try TemporaryDirectory.make("unmerge-policy")
        directories.append(dir)
        return dir
    }

    /// Every built-in flow in one mix.
    private static func everyFlow(target: String) -> String {
        """
        name: every-flow-\(UUID().uuidString.prefix(6))
        seed: 7
        devices: 240
        target: \(target)
        push: { listen: "127.0.0.1:0", deadline: 2s }
        load:
          - hold: { rate: 12/s, for: 2s }
        mix: { \(BuiltinFlows.names.map { "\($0): 1" }.joined(separator: ", ")) }
        behavior:
          answer_after: 50ms
          talk: 100ms
        drain: 20s
        action_timeout: 5s
        """
    }

    private func assertEveryActionFulfilled(_ outcome: RunCommand.Outcome, file: StaticString = #filePath,
                                            line: UInt = #line) {
        let c = outcome.result.recorder.counters
        XCTAssertGreaterThan(c["calls.started"] ?? 0, 0, file: file, line: line)
        XCTAssertEqual(c["calls.completed"], c["calls.started"], "\(c)", file: file, line: line)
        XCTAssertGreaterThan(c["action.unmerge.fulfilled"] ?? 0, 0, "\(c)", file: file, line: line)
        XCTAssertNil(c["views.mismatched"], "\(outcome.result.notes)", file: file, line: line)
    }

    func testEveryBuiltinFlowPassesAgainstAHoldGroupServerThatDeclaresIt() throws {
        let dir = try directory()
        let yaml = Self.everyFlow(target: "{ embedded: true, policy: { unmerge: hold-group } }")
        let outcome = try runScenario(yaml, in: dir)
        assertEveryActionFulfilled(outcome)
        let check = try XCTUnwrap(try HistoryCheck.run(outcome.runDirectory, writeFiles: false))
        XCTAssertEqual(check.report.violations, [], "\(check.report.violations.prefix(3))")
        XCTAssertEqual(check.report.rulesChecked, Rule.allCases)
        // The mode was live: held to the reference target's choice instead, only the policy rule objects.
        let events = try HistoryReader.read(contentsOf: RunBundle(outcome.runDirectory).history)
        let asIfReference = HistoryChecker.check(events, policy: .reference)
        XCTAssertTrue(asIfReference.violations.contains { $0.rule == .unmergePolicy })
        XCTAssertEqual(Set(asIfReference.violations.map(\.rule)), [.unmergePolicy])
    }

    func testTheReferencePolicyIsHeldToItsOwnChoiceAndPasses() throws {
        let dir = try directory()
        let outcome = try runScenario(Self.everyFlow(target: "{ embedded: true }"), in: dir)
        assertEveryActionFulfilled(outcome)
        let check = try XCTUnwrap(try HistoryCheck.run(outcome.runDirectory, writeFiles: false))
        XCTAssertEqual(check.report.violations, [], "\(check.report.violations.prefix(3))")
        XCTAssertEqual(check.report.rulesChecked, Rule.allCases)
    }

    func testUnmergeRacePassesAgainstAHoldGroupServerThatDeclaresIt() throws {
        let dir = try directory()
        for race in ["merge-vs-unmerge", "unmerge-vs-join"] {
            let yaml = try String(contentsOf: Self.root.appendingPathComponent("Scenarios/races/\(race).yaml"),
                                  encoding: .utf8)
                .replacingOccurrences(of: "target: { embedded: true }",
                                      with: "target: { embedded: true, policy: { unmerge: hold-group } }")
            let outcome = try runScenario(yaml, in: dir, file: race, out: race) { $0.durationNanos = 1_500_000_000 }
            let check = try XCTUnwrap(try HistoryCheck.run(outcome.runDirectory, writeFiles: false))
            XCTAssertEqual(check.report.violations, [], "\(race): \(check.report.violations.prefix(3))")
            XCTAssertGreaterThan(check.races.races, 10, race)
        }
    }

    func testPlantedUnmergeBugIsStillFoundUnderTheHoldGroupPolicy() throws {
        let dir = try directory()
        let yaml = try String(contentsOf: Self.root.appendingPathComponent("Scenarios/races/unmerge-vs-join.yaml"),
                              encoding: .utf8)
            .replacingOccurrences(of: "target: { embedded: true }",
                                  with: "target: { embedded: true, bugs: [unmerge-drops-join], "
                                      + "policy: { unmerge: hold-group } }")
        let outcome = try runScenario(yaml, in: dir) { $0.durationNanos = 2_000_000_000 }
        let check = try XCTUnwrap(try HistoryCheck.run(outcome.runDirectory, writeFiles: false))
        XCTAssertTrue(check.report.violations.contains { $0.rule == .finalViewsAgree }, "\(check.report.countsByRule)")
    }

    /// The same server reached by URL, its policy not declared: nothing is blamed, and the policy rule is listed
    /// as not checked, with how to declare it.
    func testUndeclaredPolicySkipsThePolicyRuleAndSaysSo() throws {
        let dir = try directory()
        let gatewayPort = try CustomAPIExample.freePort()
        var configuration = ReferenceTarget.Configuration(gatewayURL: "http://127.0.0.1:\(gatewayPort)")
        configuration.unmergePolicy = .holdGroup
        let target = ReferenceTarget(configuration: configuration)
        let outcome = try serving(target) { port in
            let yaml = try BuiltinFlowRunTests.quickened("merge-unmerge")
                .replacingOccurrences(of: "target: { embedded: true }",
                                      with: "target: { url: \"http://127.0.0.1:\(port)\" }")
                .replacingOccurrences(of: "listen: \"127.0.0.1:0\", deadline: 2s }",
                                      with: "listen: \"127.0.0.1:\(gatewayPort)\", deadline: 2s, tls: false }")
            return try runScenario(yaml, in: dir)
        }
        assertEveryActionFulfilled(outcome)
        let check = try XCTUnwrap(try HistoryCheck.run(outcome.runDirectory, writeFiles: false))
        XCTAssertEqual(check.report.violations, [], "\(check.report.violations.prefix(3))")
        XCTAssertFalse(check.report.rulesChecked.contains(.unmergePolicy))
        XCTAssertTrue(check.report.rulesChecked.contains(.unmergeRestores))
        XCTAssertNotNil(check.report.rulesSkipped?[Rule.unmergePolicy.rawValue])
        XCTAssertTrue(check.lines.contains { $0.contains("not checked: unmerge-follows-policy") }, "\(check.lines)")
    }
}
