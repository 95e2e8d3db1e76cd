import Foundation
import XCTest
@testable import Reports
import TestSupport

/// Renders report.html in headless Chromium: the page must run without script errors, show the verdict, the
/// tables and every chart, and produce a screenshot (docs/report.png is one of these).
final class HTMLScreenshotTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = TemporaryDirectory.path("screenshot")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    static let chartIDs = ["push-timeline", "action-timeline", "calls-timeline", "population", "errors",
                           "deadline-misses", "scheduler-lag", "harness-rss", "harness-fds", "distribution",
                           "outcomes"]

    private func chromium(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try HeadlessChromium.run(arguments, profile: directory.appendingPathComponent("profile"))
    }

    func testReportRendersInChromiumWithVerdictTablesEveryChartAndNoConsoleErrors() throws {
        let files = try ReportWriter.write(ReportFixtures.result(), to: directory.appendingPathComponent("run"))
        let url = files.html.absoluteString

        let dom = try chromium(["--dump-dom", url])
        XCTAssertEqual(dom.status, 0, dom.stderr)
        XCTAssertTrue(dom.stdout.contains("data-js-errors=\"0\""), "no uncaught script errors")
        XCTAssertTrue(dom.stdout.contains("data-ready=\"1\""), "the page's script ran to the end")
        let consoleErrors = dom.stderr.split(separator: "\n").filter { $0.contains("CONSOLE") }
        XCTAssertEqual(consoleErrors, [], "console messages")
        XCTAssertTrue(dom.stdout.contains("<span class=\"badge\">FAIL</span>"), "verdict banner")
        XCTAssertTrue(dom.stdout.contains("id=\"thresholds\""))
        XCTAssertTrue(dom.stdout.contains("class=\"numbers percentiles\""))
        let svgCount = dom.stdout.components(separatedBy: "<svg class=\"chart\"").count - 1
        XCTAssertEqual(svgCount, Self.chartIDs.count)
        for id in Self.chartIDs {
            XCTAssertTrue(dom.stdout.contains("data-chart=\"\(id)\""), "chart \(id)")
        }

        let png = directory.appendingPathComponent("report.png")
        let shot = try chromium(["--window-size=1100,2200", "--screenshot=\(png.path)", url])
        XCTAssertEqual(shot.status, 0, shot.stderr)
        let data = try Data(contentsOf: png)
        XCTAssertGreaterThan(data.count, 20_000, "a screenshot with content")
        XCTAssertEqual(Array(data.prefix(4)), [0x89, 0x50, 0x4e, 0x47], "PNG signature")
        if let keep = ProcessInfo.processInfo.environment["CALLSTORM_SCREENSHOT_OUT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(at: png, to: URL(fileURLWithPath: keep))
        }
    }
}
