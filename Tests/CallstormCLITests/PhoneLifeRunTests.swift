@testable import CallstormCLI
import Checker
import Foundation
import Metrics
import RunFormats
import TestSupport
import XCTest

/// Issue 37, acceptance 1 and 2: Scenarios/chaos/phone-life.yaml (interruptions, manager resets, relaunches and
/// filtered calls in chaos windows) against the reference target and, with SIP devices, through a Kamailio the run
/// starts: every event counted and logged in faults.csv, every call it spoils attributed to it, nothing blamed on a
/// correct server; and the target's `interrupted-stays-joined` bug found and named by the checker.
final class PhoneLifeRunTests: XCTestCase {
    private static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios/chaos/phone-life.yaml")

    private func example(_ edits: [(String, String)] = []) throws -> String {
        var text = try String(contentsOf: Self.example, encoding: .utf8)
        for (old, new) in edits {
            XCTAssertTrue(text.contains(old), "phone-life.yaml has no \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }

    private func checker(_ run: URL) throws -> CheckReport {
        try JSONDecoder().decode(CheckReport.self, from: Data(contentsOf: run.appendingPathComponent("checker.json")))
    }

    /// Every event acted, is a faults.csv row naming its call, and no call or finding is left to the server.
    private func assertAttributed(_ outcome: RunCommand.Outcome, events: [String],
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let c = outcome.result.recorder.counters
        let context = "\(c.filter { entry in ["calls", "faults", "life"].contains { entry.key.hasPrefix($0) } })"
        XCTAssertTrue(Books(counters: c).balanced, "\(Books(counters: c).problems)", file: file, line: line)
        for kind in events {
            XCTAssertGreaterThan(c[MetricName.fault(kind)] ?? 0, 0, "no \(kind): \(context)", file: file, line: line)
        }
        XCTAssertGreaterThan(c[MetricName.lifeActionsFulfilled] ?? 0, 0, context, file: file, line: line)
        XCTAssertNil(c[MetricName.callsFailedWithoutFault], context, file: file, line: line)
        let notCompleted = (c["calls.failed"] ?? 0) + (c["calls.missed"] ?? 0)
        XCTAssertEqual(c[MetricName.callsAttributedToFaults] ?? 0, notCompleted, context, file: file, line: line)
        let rows = FaultRow.rows(fromCSV: try String(contentsOf: outcome.runDirectory
            .appendingPathComponent("faults.csv"), encoding: .utf8))
        for kind in events {
            let mine = rows.filter { $0.kind == kind }
            XCTAssertEqual(Int64(mine.count), c[MetricName.fault(kind)], kind, file: file, line: line)
            XCTAssertTrue(mine.allSatisfy { $0.call >= 0 }, "\(kind) rows name their call", file: file, line: line)
        }
        let report = try checker(outcome.runDirectory)
        XCTAssertEqual(report.violations.map(\.message), [], file: file, line: line)
        XCTAssertEqual(c["invariant_violations"] ?? 0, 0, context, file: file, line: line)
    }

    func testEveryLifeEventAgainstTheReferenceTargetIsCountedAttributedAndNeverBlamedOnIt() throws {
        let dir = try TemporaryDirectory.make("phone-life")
        defer { TemporaryDirectory.remove(dir) }
        let outcome = try runScenario(try example(), in: dir)
        try assertOutcomesAgree(run: outcome.runDirectory)
        try assertAttributed(outcome, events: ["device.interrupted_hold", "device.interrupted_end",
                                               "device.manager_reset", "device.relaunch", "device.filtered"])
        let c = outcome.result.recorder.counters
        XCTAssertGreaterThan(c[MetricName.lifeRelaunchRegistered] ?? 0, 0, "\(c)")
        XCTAssertEqual(outcome.exitCode, .passed, "\(outcome.verdict.reasons)")
    }

    /// Acceptance 2: the target keeps an interrupted device joined; the checker names the rule and the device.
    func testTheTargetKeepingAnInterruptedDeviceJoinedIsFoundAndNamed() throws {
        let dir = try TemporaryDirectory.make("phone-life-bug")
        defer { TemporaryDirectory.remove(dir) }
        let outcome = try runScenario(try example([
            ("target: { embedded: true }", "target: { embedded: true, bugs: [interrupted-stays-joined] }"),
            ("interrupted_action: either", "interrupted_action: end"),
        ]), in: dir)
        let report = try checker(outcome.runDirectory)
        let found = report.violations.filter { $0.rule == .lifeEventTakesEffect }
        XCTAssertGreaterThan(found.count, 0, "\(report.violations.map(\.message))")
        XCTAssertTrue(found.allSatisfy { $0.message.contains("interrupted") && $0.message.contains("joined") },
                      "\(found.map(\.message))")
        XCTAssertNotEqual(outcome.exitCode, .passed, "the finding fails the run")
    }

    /// The same example with SIP devices through a Kamailio the run starts: interruptions are re-INVITEs and BYEs,
    /// resets BYEs, relaunches re-REGISTERs (and 481s), filtered calls 486s; all attributed, none blamed on Kamailio.
    func testEveryLifeEventOverSIPThroughKamailioIsCountedAndAttributed() throws {
        let dir = try TemporaryDirectory.make("phone-life-sip")
        defer { TemporaryDirectory.remove(dir) }
        let outcome = try runScenario(try example([
            ("target: { embedded: true }", "target: { sip: { kamailio: true } }"),
            ("device: { relaunch: end, filtered_status: 486 }",
             "device: { signaling: sip, sleep: false, relaunch: end, filtered_status: 486 }"),
            ("devices: 200", "devices: 100"),
        ]), in: dir)
        try assertOutcomesAgree(run: outcome.runDirectory)
        try assertAttributed(outcome, events: ["device.interrupted_hold", "device.interrupted_end",
                                               "device.manager_reset", "device.relaunch", "device.filtered"])
        let c = outcome.result.recorder.counters
        XCTAssertGreaterThan(c["sip.responses_sent.486"] ?? 0, 0, "filtered INVITEs: \(c)")
        XCTAssertGreaterThan(c["sip.requests_sent.BYE"] ?? 0, 0, "\(c)")
        XCTAssertGreaterThan(c["sip.requests_sent.REGISTER"] ?? 0, 100, "relaunches registered again: \(c)")
    }
}
