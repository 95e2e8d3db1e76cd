import XCTest
@testable import Metrics
import Thresholds

final class ThresholdTests: XCTestCase {
    private func recorder() -> Recorder {
        var recorder = Recorder(runStartNanos: 0)
        for value in 1...1_000 { recorder.record(Metric(named: "push_to_report"), micros: Int64(value * 1_000), atNanos: 0) }
        recorder.count(Metric(named: "pushes.received.voip"), by: 1_000, atNanos: 0)
        recorder.count(Metric(named: "push.deadline_missed"), by: 4, atNanos: 0)
        recorder.count(Metric(named: "action.start.started"), by: 90, atNanos: 0)
        recorder.count(Metric(named: "devices.registered"), by: 10, atNanos: 0)
        recorder.count(Metric(named: "errors.timeout"), by: 2, atNanos: 0)
        recorder.count(Metric(named: "calls.planned"), by: 95, atNanos: 0)
        recorder.count(Metric(named: "calls.not_started_at_stop"), by: 5, atNanos: 0)
        recorder.count(Metric(named: "calls.started"), by: 90, atNanos: 0)
        return recorder
    }

    private func evaluate(_ key: String, _ expression: String) throws -> ThresholdResult {
        let r = recorder()
        return try Threshold.parse(key: key, expression: expression).evaluate(histograms: r.histograms,
                                                                              counters: r.counters)
    }

    func testLatencyPercentileIsComparedInMicroseconds() throws {
        let p99 = try evaluate("push_to_report.p99", "< 1s")
        XCTAssertTrue(p99.passed)
        XCTAssertEqual(p99.measured, Double(recorder().histograms["push_to_report"]!.value(atPercentile: 99)))
        XCTAssertEqual(p99.measuredText, "990.207 ms")
        XCTAssertFalse(try evaluate("push_to_report.p99", "< 900ms").passed)
        XCTAssertTrue(try evaluate("push_to_report.count", ">= 1000").passed)
    }

    func testRatiosFollowTheirDocumentedDefinitions() throws {
        let ratios = RunRatios(counters: recorder().counters)
        XCTAssertEqual(ratios.deadlineMissRate, 0.004)
        XCTAssertEqual(ratios.errorsRate, 0.02, "2 errors over 90 actions + 10 registrations")
        XCTAssertEqual(ratios.deliveredRateRatio, 0.9)
        let miss = try evaluate("deadline_miss_rate", "< 0.5%")
        XCTAssertTrue(miss.passed)
        XCTAssertEqual(miss.measuredText, "0.4%")
        XCTAssertFalse(try evaluate("delivered_rate_ratio", "> 0.99").passed)
    }

    func testAMetricWithoutSamplesFailsRatherThanPassingVacuously() throws {
        let result = try evaluate("merge.fulfillment.p95", "< 800ms")
        XCTAssertFalse(result.passed)
        XCTAssertNil(result.measured)
        XCTAssertTrue(result.measuredText.contains("no samples"))
    }

    func testACounterNeverIncrementedCountsAsZero() throws {
        XCTAssertTrue(try evaluate("invariant_violations", "== 0").passed)
        XCTAssertFalse(try evaluate("errors.timeout", "== 0").passed)
    }
}
