@testable import CallstormCLI
import Foundation
import Reports
import TestSupport
import XCTest

/// `abort_on_fail` thresholds are judged while the run goes, and the first failure stops it with exit code 1.
final class AbortOnFailTests: XCTestCase {
    func testAFailingAbortOnFailThresholdStopsTheRunEarlyWithExitCode1() throws {
        let dir = try TemporaryDirectory.make("abort")
        defer { TemporaryDirectory.remove(dir) }
        let yaml = """
            name: abort
            seed: 9
            devices: 40
            load:
              - hold: { rate: 20/s, for: 60s }
            behavior:
              answer_after: { constant: 50ms }
              talk: { constant: 200ms }
            drain: 5s
            slo:
              push_to_report.max: { threshold: "< 1us", abort_on_fail: true }
              calls.failed: "== 0"
            """
        let outcome = try runScenario(yaml, in: dir, file: "abort")
        XCTAssertEqual(outcome.exitCode, .thresholdsFailed)
        XCTAssertFalse(outcome.verdict.passed)
        XCTAssertTrue(outcome.verdict.reasons.contains { $0.contains("aborted by abort_on_fail") },
                      "\(outcome.verdict.reasons)")
        let summary = try ReportSummary.decode(from: Data(contentsOf: outcome.runDirectory
            .appendingPathComponent("summary.json")))
        XCTAssertEqual(summary.thresholds?.first?.passed, false)
        // Stopped early, counted in calls rather than seconds: 60 s at 20/s plans 1,200 calls.
        let started = summary.counters["calls.started"] ?? 0
        XCTAssertGreaterThan(started, 0)
        XCTAssertLessThan(started, 600, "stopped long before the 60 s of arrivals")
    }
}
