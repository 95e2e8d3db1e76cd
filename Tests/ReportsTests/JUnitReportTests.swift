import Foundation
import FoundationXML
import Metrics
import XCTest
@testable import Reports
import Thresholds

/// junit.xml must have the shape CI reporters read: testsuites > testsuite > testcase (> failure).
final class JUnitReportTests: XCTestCase {
    /// Collects elements with their attributes and parent, which is all the JUnit shape needs.
    private final class Collector: NSObject, XMLParserDelegate {
        struct Element { var name: String; var attributes: [String: String]; var parent: String?; var text = "" }
        var elements: [Element] = []
        private var stack: [Int] = []

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements.append(Element(name: name, attributes: attributes, parent: stack.last.map { elements[$0].name }))
            stack.append(elements.count - 1)
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let top = stack.last { elements[top].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }
    }

    private func parse(_ xml: String) throws -> [Collector.Element] {
        let parser = XMLParser(data: Data(xml.utf8))
        let collector = Collector()
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "junit.xml is well-formed XML: \(String(describing: parser.parserError))")
        return collector.elements
    }

    func testJUnitHasOneTestcasePerThresholdAndAFailureWithTheMeasuredValue() throws {
        let failing = try Threshold.parse(key: "push_to_report.p99", expression: "< 10ms")
        let thresholds = ReportFixtures.thresholds() + [failing]
        let result = ReportFixtures.result(thresholds: thresholds)
        let elements = try parse(JUnitReport.render(result))

        XCTAssertEqual(elements.first?.name, "testsuites")
        let suites = elements.filter { $0.name == "testsuite" }
        XCTAssertEqual(suites.count, 1)
        XCTAssertEqual(suites[0].parent, "testsuites")
        let cases = elements.filter { $0.name == "testcase" }
        XCTAssertEqual(cases.count, thresholds.count, "one testcase per threshold")
        XCTAssertTrue(cases.allSatisfy { $0.parent == "testsuite" && $0.attributes["classname"] != nil })
        XCTAssertEqual(cases.map { $0.attributes["name"] }, thresholds.map(\.text))

        let failures = elements.filter { $0.name == "failure" }
        let failed = result.thresholds.filter { !$0.passed }
        XCTAssertEqual(failures.count, failed.count)
        XCTAssertTrue(failures.allSatisfy { $0.parent == "testcase" })
        XCTAssertEqual(suites[0].attributes["tests"], String(thresholds.count))
        XCTAssertEqual(suites[0].attributes["failures"], String(failed.count))
        XCTAssertEqual(elements[0].attributes["failures"], String(failed.count))
        XCTAssertEqual(suites[0].attributes["errors"], "0")
        let p99 = result.recorder.histograms["push_to_report"]!.value(atPercentile: 99)
        let message = try XCTUnwrap(failures.last?.attributes["message"])
        XCTAssertTrue(message.contains(ReportFormat.millis(p99) + " ms"), message)
        XCTAssertTrue(message.contains("< 10ms"), message)
        XCTAssertTrue(elements.contains { $0.name == "property" && $0.attributes["name"] == "seed"
            && $0.attributes["value"] == "7" })
    }

    func testInterruptedRunAddsAnErrorTestcase() throws {
        let elements = try parse(JUnitReport.render(ReportFixtures.result(interrupted: true)))
        XCTAssertEqual(elements.filter { $0.name == "error" }.count, 1)
        XCTAssertEqual(elements.first { $0.name == "testsuite" }?.attributes["errors"], "1")
    }

    func testControlCharactersAndMarkupInNamesStayWellFormed() throws {
        var result = ReportFixtures.result()
        result.facts.scenario = "a<b>&\"c\"\u{1}"
        result.notes = ["</system-out><x>"]
        _ = try parse(JUnitReport.render(result))
    }
}

/// Report timestamps (JUnit's `timestamp`, the .hlog header, the HTML's start) as ISO 8601 in UTC.
final class ReportTimestampTests: XCTestCase {
    func testTimestampsMatchFoundationsFormatterToTheSecondWithFractionsTruncated() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.formatOptions = [.withInternetDateTime]
        for seconds in [0, 1_764_998_455.999, 951_782_400.5, 4_102_444_799, 1_000_000_000] as [Double] {
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(ReportFormat.iso8601UTC(date), formatter.string(from: date), "\(seconds)")
        }
        XCTAssertEqual(ReportFormat.iso8601UTC(Date(timeIntervalSince1970: 1_796_533_855.7)), "2026-12-06T05:10:55Z")
    }
}
