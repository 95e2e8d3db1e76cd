import Foundation
import Metrics
import XCTest
@testable import Reports
import TestSupport
import Thresholds

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

/// Per flow step figures have one source, the recorder: the report shows what the driver recorded.
final class StepFiguresTests: XCTestCase {
    func testTheReportShowsTheRecordedStepHistogramsAndOutcomes() {
        var recorder = Recorder(runStartNanos: ReportFixtures.start)
        ReportFixtures.recordSteps(into: &recorder)
        var facts = ReportFixtures.facts()
        facts.rowSampleEvery = 10
        let result = RunResult(facts: facts, recorder: recorder, verdict: Verdict(passed: true))
        XCTAssertEqual(result.histograms["join.fulfillment@incoming-1to1/answer"]?.totalCount, 50)
        XCTAssertEqual(result.histograms["join.fulfillment_from_planned@incoming-1to1/answer"]?.min, 11_000)
        XCTAssertEqual(result.stepOutcomes, ["join@incoming-1to1/answer": ["fulfilled": 45, "failed": 5]])
        let html = HTMLReport(result).render()
        XCTAssertTrue(html.contains(#"<tr class="step"><th scope="row">join@incoming-1to1/answer</th><td>50</td>"#))
        XCTAssertTrue(html.contains("keep one row in 10"), "the sampling note comes from the facts")
        XCTAssertEqual(ReportSummary(result).rowSampleEvery, 10)
    }

    func testAStepThresholdIsJudgedOnTheRecordedHistogram() throws {
        let threshold = try Threshold.parse(key: "join.fulfillment@incoming-1to1/answer.max", expression: "< 14ms")
        let result = ReportFixtures.result(thresholds: [threshold])
        XCTAssertEqual(result.thresholds.first?.measured, 14_900)
        XCTAssertEqual(result.thresholds.first?.passed, false)
    }
}
