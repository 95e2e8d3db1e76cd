@testable import CallstormCLI
import Foundation
import Reports
import TestSupport
import XCTest

/// A `capacity:` ramp stops its arrivals once a window breaks the limit, and the report names the knee.
// serial: it bounds how many calls started before the capacity watch ended arrivals (< 750), a figure the
// real clock sets: on a machine other test classes load, the per-second judgement and the stop come later.
final class CapacityRunTests: XCTestCase {
    func testARampStopsAtTheKneeAndTheReportShowsIt() throws {
        let dir = try TemporaryDirectory.make("capacity")
        defer { TemporaryDirectory.remove(dir) }
        // No push is reported within 1 µs, so the first judged window breaks the limit.
        let yaml = """
            name: knee
            seed: 5
            devices: 200
            load:
              - ramp: { from: 10/s, to: 40/s, over: 60s }
            behavior:
              answer_after: { constant: 20ms }
              talk: { constant: 100ms }
            drain: 5s
            capacity:
              limit: { push_to_report.p99: "< 1us" }
              window: 1s
              min_samples: 5
            """
        let outcome = try runScenario(yaml, in: dir, file: "knee")
        XCTAssertEqual(outcome.exitCode, .passed, "stopping at the knee is the plan, not a failure")
        let summary = try ReportSummary.decode(from: Data(contentsOf: outcome.runDirectory
            .appendingPathComponent("summary.json")))
        XCTAssertFalse(summary.facts.interrupted)
        let capacity = try XCTUnwrap(summary.capacity)
        let broken = try XCTUnwrap(capacity.broken)
        XCTAssertFalse(broken.passed)
        XCTAssertGreaterThanOrEqual(broken.samples, 5)
        XCTAssertNil(capacity.kneeCallsPerSecond, "no window kept a 1 µs limit")
        // The 60 s ramp plans about 1,500 calls; the watch ended arrivals within a few seconds of the break.
        let started = summary.counters["calls.started"] ?? 0
        XCTAssertGreaterThan(started, 5)
        XCTAssertLessThan(started, 750)
        XCTAssertTrue(summary.notes.contains { $0.contains("Arrivals ended at the capacity knee") }, "\(summary.notes)")
        // Every started call still ended: arrivals stop, calls in flight drain.
        XCTAssertEqual(started, (summary.counters["calls.completed"] ?? 0) + (summary.counters["calls.failed"] ?? 0))
        let html = try String(contentsOf: outcome.runDirectory.appendingPathComponent("report.html"), encoding: .utf8)
        XCTAssertTrue(html.contains("id=\"capacity\""))
        XCTAssertTrue(html.contains("data-chart=\"capacity-knee\""))
        XCTAssertTrue(html.contains("push_to_report.p99 &lt; 1us broke at second \(broken.second)"),
                      String(html[html.range(of: "id=\"capacity\"")!.lowerBound...].prefix(400)))
    }
}
