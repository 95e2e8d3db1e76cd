import Metrics
import XCTest

final class PrometheusExpositionTests: XCTestCase {
    func testExpositionHasCumulativeBucketsExactQuantilesAndEscapedLabels() {
        var h = HdrHistogram(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, significantDigits: 3)
        for v in [800, 1_500, 3_000, 40_000, 2_000_000] as [Int64] { h.record(v) }
        let snapshot = PrometheusExposition.Figures(counters: ["calls.started": 7, "errors.http_500": 1],
                                                    histograms: ["push_to_report": h.sparse], activeConversations: 3,
                                                    final: false)
        let text = PrometheusExposition(labels: .init(scenario: "a\"b", seed: 9, shard: "1/4"))
            .render(snapshot, elapsedSeconds: 2.5)
        let run = "scenario=\"a\\\"b\",seed=\"9\",shard=\"1/4\""
        XCTAssertTrue(text.contains("callstorm_events_total{\(run),counter=\"calls.started\"} 7\n"), text)
        XCTAssertTrue(text.contains("callstorm_active_conversations{\(run)} 3\n"))
        let base = "callstorm_latency_seconds_bucket{\(run),metric=\"push_to_report\""
        XCTAssertTrue(text.contains("\(base),le=\"0.001\"} 1\n"), text)
        XCTAssertTrue(text.contains("\(base),le=\"0.005\"} 3\n"))
        XCTAssertTrue(text.contains("\(base),le=\"1\"} 4\n"))
        XCTAssertTrue(text.contains("\(base),le=\"+Inf\"} 5\n"))
        XCTAssertTrue(text.contains("callstorm_latency_seconds_count{\(run),metric=\"push_to_report\"} 5\n"))
        let p50 = PrometheusExposition.seconds(h.value(atPercentile: 50))
        XCTAssertTrue(text.contains("quantile_seconds{\(run),metric=\"push_to_report\",quantile=\"0.5\"} \(p50)\n"))
        XCTAssertEqual(PrometheusExposition.seconds(1_500), "0.0015")
        XCTAssertEqual(PrometheusExposition.seconds(2_000_000), "2")
    }
}
