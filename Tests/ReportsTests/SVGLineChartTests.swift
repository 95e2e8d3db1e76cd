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

    /// A legend too wide for the top right goes in rows below the plot and the head's viewBox grows to hold them
    /// (written once, with the grown height); one that fits keeps the chart's height.
    func testALegendInRowsBelowGrowsTheViewBoxOnce() {
        let points = [SVGLineChart.Point(x: 0, y: 1), .init(x: 1, y: 2)]
        func chart(_ names: [String]) -> String {
            SVGLineChart(title: "t", xAxis: .linear(label: "s"), yLabel: "ms",
                         series: names.map { .init(name: $0, color: "#000", points: points) }).svg()
        }
        // Six names of 30 characters (228 units each): two a row below the plot, three rows from y 324.
        let wide = chart((0..<6).map { String(repeating: "x", count: 29) + "\($0)" })
        XCTAssertTrue(wide.hasPrefix("<svg class=\"chart\" viewBox=\"0 0 760 372\" role=\"img\""), wide)
        XCTAssertEqual(wide.components(separatedBy: "viewBox=").count, 2)
        XCTAssertTrue(wide.hasSuffix("</text>\n</g>\n</svg>"))
        let narrow = chart(["p50", "p99"])
        XCTAssertTrue(narrow.hasPrefix("<svg class=\"chart\" viewBox=\"0 0 760 320\" role=\"img\""), narrow)
    }
}
