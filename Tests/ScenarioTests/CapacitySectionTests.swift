import Metrics
import XCTest
@testable import Scenario

final class CapacitySectionTests: XCTestCase {
    private let base = """
        name: ramp
        devices: 10
        load:
          - ramp: { from: 1/s, to: 50/s, over: 20s }

        """

    private func load(_ section: String) -> Result<Scenario, ScenarioErrors> {
        ScenarioLoader.parse(base + section, file: "ramp.yaml")
    }

    func testCapacitySectionIsReadWithDefaults() throws {
        let spec = try XCTUnwrap(try load("""
            capacity:
              limit: { push_to_report.p99: "< 100ms" }

            """).get().capacity)
        XCTAssertEqual(spec.limit.subject, .latency(metric: "push_to_report", statistic: .percentile(99)))
        XCTAssertEqual(spec.limit.limit, 100_000)
        XCTAssertEqual(spec.limit.source, "ramp.yaml:6:12")
        XCTAssertEqual(spec.windowSeconds, 5)
        XCTAssertTrue(spec.stopAtKnee)
        XCTAssertEqual(spec.minimumSamples, 20)
        let custom = try XCTUnwrap(try load("""
            capacity: { limit: { join.fulfillment.max: "<= 2s" }, window: 10s, stop: false, min_samples: 5 }

            """).get().capacity)
        XCTAssertEqual(custom.windowSeconds, 10)
        XCTAssertFalse(custom.stopAtKnee)
        XCTAssertEqual(custom.minimumSamples, 5)
        XCTAssertNil(try load("").get().capacity)
    }

    func testBadCapacitySectionsNameTheirPlace() {
        let cases: [(String, String)] = [
            ("capacity: { limit: { calls.failed: \"== 0\" } }\n",
             "ramp.yaml:5:22: error: 'capacity.limit' must be a latency statistic"),
            ("capacity: { limit: { push_to_report.p99: \"< 100ms\" }, window: 1500ms }\n",
             "ramp.yaml:5:63: error: 'capacity.window' must be whole seconds"),
            ("capacity: { limit: { push_to_report.p99: \"100ms\" } }\n",
             "ramp.yaml:5:42: error: expected 'push_to_report.p99' as a comparison"),
            ("capacity: { limit: \"push_to_report.p99 < 1s\" }\n",
             "ramp.yaml:5:20: error: expected 'capacity.limit' as one latency limit"),
            ("capacity: { limit: { push_to_report.p99: \"< 1s\" }, stopp: true }\n",
             "ramp.yaml:5:52: error: unknown key 'stopp'"),
            ("capacity: { window: 5s }\n", "ramp.yaml:5:11: error: 'capacity' is missing the required key 'limit'"),
        ]
        for (section, expected) in cases {
            guard case .failure(let errors) = load(section) else { XCTFail("expected an error for \(section)"); continue }
            XCTAssertTrue(errors.description.contains(expected), "\(section) → \(errors.description)")
        }
    }
}
