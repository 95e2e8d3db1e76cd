@testable import CallstormCLI
import Foundation
import Reports
import TestSupport
import XCTest

/// A ramp that outruns callstorm itself reports the harness bound (at what calls/s, from which second), never a
/// knee above it. The harness is slowed on purpose (each call blocks its worker), so the test does not depend on
/// how fast this machine is.
// serial: it judges callstorm's own scheduler lag against a 10 ms limit; other classes' processes on the same
// cores add lag of their own, and the second the harness saturates (with the rates quoted from it) would move.
final class HarnessSaturationRunTests: XCTestCase {
    func testARampThatOutrunsTheHarnessReportsTheHarnessBoundNotAKnee() throws {
        let dir = try TemporaryDirectory.make("sat")
        defer { TemporaryDirectory.remove(dir) }
        // 60 ms of blocking per call on one worker: it can start at most ~16 calls/s, the ramp asks for 40.
        setenv("CALLSTORM_STALL_PER_CALL", "60ms", 1)
        defer { unsetenv("CALLSTORM_STALL_PER_CALL") }
        let yaml = """
            name: outrun
            seed: 9
            devices: 400
            workers: 1
            load:
              - ramp: { from: 5/s, to: 40/s, over: 20s }
            behavior:
              answer_after: { constant: 20ms }
              talk: { constant: 100ms }
            drain: 5s
            capacity:
              limit: { push_to_report.p99: "< 20s" }
              window: 2s
              min_samples: 5
            harness: { lag_limit: 10ms, window: 2s, min_samples: 5, on_saturation: end_arrivals }
            """
        let outcome = try runScenario(yaml, in: dir, file: "outrun")
        XCTAssertEqual(outcome.exitCode, .passed, "saturation is reported; only on_saturation: abort fails the run")
        let summary = try ReportSummary.decode(from: Data(contentsOf: outcome.runDirectory
            .appendingPathComponent("summary.json")))
        let harness = try XCTUnwrap(summary.harness, "the run must say callstorm saturated")
        XCTAssertGreaterThan(harness.lagMicros, 10_000)
        XCTAssertLessThan(harness.deliveredCallsPerSecond, 30, "one stalled worker cannot start 30 calls/s")
        let capacity = try XCTUnwrap(summary.capacity)
        XCTAssertNil(capacity.broken, "no knee may be claimed above the harness bound")
        XCTAssertNil(capacity.kneeCallsPerSecond)
        XCTAssertTrue(capacity.windows.contains(where: \.harnessBound))
        XCTAssertTrue(capacity.summary.hasPrefix("harness-bound at "), capacity.summary)
        XCTAssertTrue(summary.verdict.reasons.first?.hasPrefix("callstorm saturated at ~") ?? false,
                      "\(summary.verdict.reasons)")
        XCTAssertTrue(summary.notes.contains { $0.contains("Arrivals ended when callstorm saturated") },
                      "\(summary.notes)")
        let junit = try String(contentsOf: outcome.runDirectory.appendingPathComponent("junit.xml"), encoding: .utf8)
        XCTAssertTrue(junit.contains("type=\"harness-saturated\""), junit)
        let html = try String(contentsOf: outcome.runDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("callstorm saturated at ~"))
        XCTAssertTrue(html.contains("harness-bound"))
    }
}
