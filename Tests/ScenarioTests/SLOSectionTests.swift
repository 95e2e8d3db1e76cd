import Metrics
import XCTest
@testable import Scenario

final class SLOSectionTests: XCTestCase {
    private let base = """
        name: gated
        devices: 10
        load:
          - hold: { rate: 5/s, for: 10s }

        """

    private func load(_ slo: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse(base + slo, file: "gated.yaml")
    }

    func testEveryThresholdShapeIsReadWithItsSourcePosition() throws {
        let result = load("""
            slo:
              push_to_report.p99: "< 1s"
              deadline_miss_rate: "< 0.5%"
              join.fulfillment.p95: "<= 800ms"
              join.fulfillment@incoming-1to1/answer.p99.9: "< 2s"
              errors.rate: "< 1%"
              delivered_rate_ratio: "> 0.99"
              calls.failed: "== 0"
              push_to_report.max: { threshold: "< 5s", abort_on_fail: true }

            """)
        let slo = try result.get().slo
        XCTAssertEqual(slo.count, 8)
        XCTAssertEqual(slo[0].subject, .latency(metric: "push_to_report", statistic: .percentile(99)))
        XCTAssertEqual(slo[0].limit, 1_000_000)
        XCTAssertEqual(slo[0].source, "gated.yaml:6:3")
        XCTAssertEqual(slo[1].subject, .ratio(.deadlineMissRate))
        XCTAssertEqual(slo[1].limit, 0.005, accuracy: 1e-12)
        XCTAssertEqual(slo[2].comparison, .lessOrEqual)
        XCTAssertEqual(slo[2].limit, 800_000)
        XCTAssertEqual(slo[3].subject,
                       .latency(metric: "join.fulfillment@incoming-1to1/answer", statistic: .percentile(99.9)))
        XCTAssertEqual(slo[4].subject, .ratio(.errorsRate))
        XCTAssertEqual(slo[5].comparison, .greaterThan)
        XCTAssertEqual(slo[6].subject, .counter("calls.failed"))
        XCTAssertEqual(slo[7].subject, .latency(metric: "push_to_report", statistic: .max))
        XCTAssertTrue(slo[7].abortOnFail)
        XCTAssertFalse(slo[0].abortOnFail)
    }

    func testBadThresholdsAreAllReportedWithFileLineAndColumn() {
        guard case .failure(let errors) = load("""
            slo:
              push_to_report.p99: "1s"
              join.fulfillment.p95: "< 800"
              deadline_miss_ratio: "< 1%"
              errors.rate: "< lots"
              push_to_report.p100: "< 1s"
              push_to_report.max: { threshold: "< 1s", abort: true }

            """) else { return XCTFail("expected errors") }
        let text = errors.description
        XCTAssertEqual(errors.errors.count, 6, text)
        XCTAssertTrue(text.contains("gated.yaml:6:23: error: expected 'push_to_report.p99' as a comparison"), text)
        XCTAssertTrue(text.contains("gated.yaml:7:25: error: expected a duration like 800ms"), text)
        XCTAssertTrue(text.contains("gated.yaml:8:3: error: unknown ratio 'deadline_miss_ratio'"), text)
        XCTAssertTrue(text.contains("did you mean 'deadline_miss_rate'?"), text)
        XCTAssertTrue(text.contains("gated.yaml:9:16: error: expected a percentage"), text)
        XCTAssertTrue(text.contains("gated.yaml:10:3: error: percentile in 'push_to_report.p100'"), text)
        XCTAssertTrue(text.contains("gated.yaml:11:44: error: unknown key 'abort'"), text)
    }

    func testScenarioWithoutSLOHasNoThresholds() throws {
        XCTAssertEqual(try load("").get().slo, [])
    }

    func testDescribeListsTheThresholds() throws {
        let scenario = try load("slo: { push_to_report.p99: \"< 1s\" }\n").get()
        XCTAssertTrue(scenario.describe().contains("push_to_report.p99 < 1s"), scenario.describe())
    }
}
