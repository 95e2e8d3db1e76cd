@testable import CallstormCLI
import Driver
import Foundation
import Scenario
import TestSupport
import XCTest

/// Acceptance for the lifecycle: every shipped flow scenario (Scenarios/<flow>.yaml) runs against the embedded
/// target with every action fulfilled, and every device's final view of its conversations equals the target's.
final class BuiltinFlowRunTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What the shipped files share and this test shortens: the flow's steps are under test, not the load's shape
    /// or how long people think, so ten calls in one second with quick answers and short talks (the shipped
    /// ramp and think times held a 2 s slice of the load up to 8 s, waiting for its longest call).
    static let quicker = [
        ("  - ramp: { from: 0/s, to: 10/s, over: 3s }\n  - hold: { rate: 10/s, for: 7s }",
         "  - hold: { rate: 10/s, for: 1s }"),
        ("answer_after: { lognormal: { median: 500ms, sigma: 0.4 } }", "answer_after: { uniform: [50ms, 200ms] }"),
        ("talk: { exponential: { mean: 2s } }", "talk: { uniform: [100ms, 400ms] }"),
    ]

    /// `Scenarios/<flow>.yaml` as `quicker` makes it.
    static func quickened(_ flow: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        var text = try String(contentsOf: root.appendingPathComponent("Scenarios/\(flow).yaml"), encoding: .utf8)
        for (shipped, quick) in quicker {
            XCTAssertTrue(text.contains(shipped), "\(flow).yaml no longer has \(shipped)", file: file, line: line)
            text = text.replacingOccurrences(of: shipped, with: quick)
        }
        return text
    }

    private func runShipped(_ flow: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try TemporaryDirectory.make("flow-\(flow)")
        defer { TemporaryDirectory.remove(dir) }
        let text = try Self.quickened(flow, file: file, line: line)
        let path = dir.appendingPathComponent("\(flow).yaml")
        try text.write(to: path, atomically: true, encoding: .utf8)
        var options = RunCommand.Options(file: path.path)
        options.out = dir.appendingPathComponent("run").path
        options.quiet = true
        let outcome = try RunCommand.perform(options)
        let c = outcome.result.recorder.counters
        XCTAssertTrue(outcome.result.drainedCleanly, "\(outcome.result.notes)", file: file, line: line)
        XCTAssertGreaterThan(c["calls.started"] ?? 0, 0, file: file, line: line)
        XCTAssertEqual(c["calls.completed"], c["calls.started"], "\(flow): \(c)", file: file, line: line)
        for (name, value) in c where name.hasPrefix("action.") && name.hasSuffix(".started") {
            let kind = name.dropFirst("action.".count).dropLast(".started".count)
            XCTAssertEqual(c["action.\(kind).fulfilled"], value, "\(flow) \(kind): \(c)", file: file, line: line)
        }
        XCTAssertGreaterThan(c["views.checked"] ?? 0, 0, file: file, line: line)
        XCTAssertNil(c["views.mismatched"], "\(flow): \(outcome.result.notes)", file: file, line: line)
        // Per-step percentiles are first-class rows of summary.csv.
        let csv = try String(contentsOf: outcome.runDirectory.appendingPathComponent("summary.csv"), encoding: .utf8)
        for step in BuiltinFlows.flow(named: flow)!.allSteps where step.kind.isAction {
            if case .awaitPush = step.kind { continue }
            if case .awaitEnd = step.kind { continue }
            XCTAssertTrue(csv.contains(".fulfillment@\(flow)/\(step.name),"), "no summary.csv row for step \(step.name)",
                          file: file, line: line)
        }
    }

    func testIncoming1to1() throws { try runShipped("incoming-1to1") }
    func testOutgoing1to1() throws { try runShipped("outgoing-1to1") }
    func testDeclined() throws { try runShipped("declined") }
    func testUnanswered() throws { try runShipped("unanswered") }
    func testCallerCancels() throws { try runShipped("caller-cancels") }
    func testHoldResume() throws { try runShipped("hold-resume") }
    func testGroupCall() throws { try runShipped("group-call") }
    func testGroupMerge() throws { try runShipped("group-merge") }
    func testMergeUnmerge() throws { try runShipped("merge-unmerge") }
    func testRedialAfterDrop() throws { try runShipped("redial-after-drop") }
}
