import Foundation
import Thresholds
import XCTest

/// A threshold's key and expression read into a value, without a recorder (Metrics evaluates them).
final class ThresholdParsingTests: XCTestCase {
    func testOperatorsAndLimitsNeedUnitsAndKnownShapes() {
        XCTAssertThrowsError(try Threshold.parse(key: "push_to_report.p99", expression: "< 1"))
        XCTAssertThrowsError(try Threshold.parse(key: "push_to_report.p99", expression: "1s"))
        XCTAssertThrowsError(try Threshold.parse(key: "errors.rate", expression: "< 1 percent"))
        XCTAssertThrowsError(try Threshold.parse(key: "join.fulfillment@flow/step", expression: "< 1s"))
        XCTAssertEqual(try Threshold.parse(key: "a.p50", expression: ">=2.5ms").comparison, .greaterOrEqual)
        XCTAssertEqual(try Threshold.parse(key: "a.p50", expression: "!= 2.5ms").limit, 2_500)
    }
}

final class ThresholdCodingTests: XCTestCase {
    func testThresholdEncodesItsSubjectReadablyAndDecodesToTheSameValue() throws {
        let threshold = try Threshold.parse(key: "join.fulfillment@incoming-1to1/answer.p99.9", expression: "< 2s",
                                            abortOnFail: true, source: "a.yaml:3:5")
        let data = try JSONEncoder().encode(threshold)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains("\"statistic\":\"p99.9\""), text)
        XCTAssertTrue(text.contains("\"kind\":\"latency\""), text)
        XCTAssertEqual(try JSONDecoder().decode(Threshold.self, from: data), threshold)
    }
}
