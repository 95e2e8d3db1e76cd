import Foundation
import Metrics
import XCTest
@testable import Reports
import TestSupport

final class ComparisonTests: XCTestCase {
    private func summary(p99Factor: Double = 1, p50Factor: Double = 1) -> ReportSummary {
        var summary = ReportSummary(ReportFixtures.result())
        for key in Array(summary.metrics.keys) {
            summary.metrics[key]!.p99 *= p99Factor
            summary.metrics[key]!.p50 *= p50Factor
        }
        return summary
    }

    func testThirtyPercentP99RegressionIsFlaggedOnEveryMetricAndNothingElse() {
        let comparison = Comparison(base: summary(), current: summary(p99Factor: 1.3), baseName: "a",
                                    currentName: "b", defaultAllowed: 0.10)
        XCTAssertFalse(comparison.passed)
        XCTAssertTrue(comparison.regressions.allSatisfy { $0.statistic == "p99" })
        XCTAssertEqual(comparison.regressions.count, summary().metrics.values.filter { $0.p99 > 0 }.count)
        XCTAssertEqual(comparison.regressions.first?.change ?? 0, 0.3, accuracy: 1e-9)
        XCTAssertTrue(comparison.text().contains("REGRESSION"))
    }

    func testIdenticalRunsAndImprovementsPass() {
        XCTAssertTrue(Comparison(base: summary(), current: summary(), baseName: "a", currentName: "a",
                                 defaultAllowed: 0).passed)
        XCTAssertTrue(Comparison(base: summary(), current: summary(p99Factor: 0.5), baseName: "a", currentName: "b",
                                 defaultAllowed: 0.1).passed)
    }

    func testPerStatisticLimitOverridesTheGlobalOne() {
        let comparison = Comparison(base: summary(), current: summary(p99Factor: 1.3), baseName: "a",
                                    currentName: "b", defaultAllowed: 0.10, allowed: ["push_to_report.p99": 0.5])
        XCTAssertFalse(comparison.regressions.contains { $0.metric == "push_to_report" })
        XCTAssertTrue(comparison.regressions.contains { $0.metric == "join.fulfillment" })
    }

    func testMinimumDeltaIgnoresSubResolutionNoise() {
        let comparison = Comparison(base: summary(), current: summary(p50Factor: 1.5), baseName: "a",
                                    currentName: "b", defaultAllowed: 0.10, minimumDeltaMillis: 1_000)
        XCTAssertTrue(comparison.passed)
    }

    func testRatiosAndMaxAreShownButNotJudged() {
        let comparison = Comparison(base: summary(), current: summary(), baseName: "a", currentName: "b",
                                    defaultAllowed: 0.1)
        let ratio = comparison.rows.first { $0.metric == "deadline_miss_rate" }
        XCTAssertEqual(ratio?.statistic, "ratio")
        XCTAssertNil(ratio?.allowed)
        XCTAssertNil(comparison.rows.first { $0.statistic == "max" }?.allowed)
        XCTAssertTrue(comparison.html().contains("shown only"))
    }
}

final class StepMetricsTests: XCTestCase {
    func testRecordedStepHistogramWinsOverTheOneRebuiltFromActionsCSV() {
        var recorder = Recorder(runStartNanos: 0)
        for value in 1...10 { recorder.record(Metric(named: "step.incoming-1to1/answer"), micros: Int64(value * 100), atNanos: 0) }
        var steps = StepMetrics()
        steps.add(kind: "join", step: "incoming-1to1/answer", outcome: "fulfilled", latencyMicros: 100,
                  fromPlannedMicros: 150)
        let result = RunResult(facts: ReportFixtures.facts(), recorder: recorder, verdict: Verdict(passed: true),
                               steps: steps)
        XCTAssertEqual(result.histograms["join.fulfillment@incoming-1to1/answer"]?.totalCount, 10)
        XCTAssertEqual(result.histograms["join.fulfillment_from_planned@incoming-1to1/answer"]?.totalCount, 1)
    }

    func testActionsCSVRowsCutByAKillOrMalformedAreSkipped() throws {
        let url = TemporaryDirectory.path("steps").appendingPathExtension("csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let text = """
            id,kind,step,device,conversation,planned_s,started_s,finished_s,outcome,reason,latency_ms
            1,join,f/answer,d1,c1,1.000000,1.000100,1.002100,fulfilled,,2.000
            2,join,f/answer,d1,c1,garbage,1.000100,1.002100,fulfilled,,2.000
            3,end,f/hangup,d1,c1,2.000000,2.000000,2.000
            """
        try Data(text.utf8).write(to: url)
        let steps = StepMetrics.load(actionsCSV: url)
        XCTAssertEqual(steps.rows, 1)
        XCTAssertEqual(steps.histograms["join.fulfillment@f/answer"]?.max, 2_000)
        XCTAssertEqual(steps.histograms["join.fulfillment_from_planned@f/answer"]?.max, 2_100)
        XCTAssertEqual(steps.outcomes["join@f/answer"], ["fulfilled": 1])
    }
}
