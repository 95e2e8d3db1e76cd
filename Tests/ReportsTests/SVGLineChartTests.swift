import XCTest
@testable import Reports

final class SVGLineChartTests: XCTestCase {
    func testChartWithoutPointsSaysNoSamples() {
        let chart = SVGLineChart(title: "t", xAxis: .linear(label: "s"), yLabel: "ms",
                                 series: [.init(name: "p50", color: "#000", points: [])])
        let svg = chart.svg()
        XCTAssertTrue(svg.hasPrefix("<svg"))
        XCTAssertTrue(svg.contains("no samples"))
        XCTAssertFalse(svg.contains("<polyline"))
    }

    func testGapLargerThanMaximumBreaksTheLine() {
        let points = [0.0, 1, 2, 5, 6].map { SVGLineChart.Point(x: $0, y: $0) }
        let chart = SVGLineChart(title: "t", xAxis: .linear(label: "s"), yLabel: "ms",
                                 series: [.init(name: "a", color: "#000", points: points, maximumGap: 1)])
        XCTAssertEqual(chart.svg().components(separatedBy: "<polyline").count - 1, 2)
    }

    func testNonFiniteValuesAreNotDrawn() {
        let points = [SVGLineChart.Point(x: 0, y: 1), .init(x: 1, y: .nan), .init(x: 2, y: 3)]
        let svg = SVGLineChart(title: "t", xAxis: .linear(label: "s"), yLabel: "ms",
                               series: [.init(name: "a", color: "#000", points: points)]).svg()
        XCTAssertFalse(svg.lowercased().contains("nan"))
        XCTAssertFalse(svg.contains("inf"))
    }

    func testPercentileAxisIsLabelledInNines() {
        let points = [0.0, 50, 90, 99, 99.9, 100].map { SVGLineChart.Point(x: $0, y: $0) }
        let svg = SVGLineChart(title: "t", xAxis: .percentile(label: "percentile"), yLabel: "ms",
                               series: [.init(name: "a", color: "#000", points: points)]).svg()
        for label in ["0%", "50%", "90%", "99%", "99.9%"] {
            XCTAssertTrue(svg.contains(">\(label)</text>"), label)
        }
        XCTAssertFalse(svg.contains("inf"))
    }

    func testNiceScaleUsesRoundSteps() {
        let scale = NiceScale(minimum: 0, maximum: 1_100, includeZero: true)
        XCTAssertEqual(scale.lower, 0)
        XCTAssertGreaterThanOrEqual(scale.upper, 1_100)
        XCTAssertTrue([100.0, 200, 250, 500].contains(scale.step))
        XCTAssertEqual(NiceScale(minimum: 0, maximum: 1, includeZero: true).label(0.2), "0.2")
    }
}
