import Foundation
import Metrics
import XCTest
@testable import Reports
import TestSupport

final class ReportWriterTests: XCTestCase {
    private var directory: URL!
    private let start: UInt64 = 1_000_000_000_000

    override func setUpWithError() throws {
        directory = TemporaryDirectory.path("report-tests").appendingPathComponent("nested")
    }

    override func tearDownWithError() throws {
        TemporaryDirectory.remove(directory.deletingLastPathComponent())
    }

    // MARK: - Fixtures

    private func facts(target: String = "embedded", interrupted: Bool = false) -> RunFacts {
        RunFacts(
            scenario: "nightly <merge & race>", scenarioFile: "Scenarios/nightly.yaml", seed: 42, version: "0.1.0",
            startedAt: Date(timeIntervalSince1970: 1_796_000_000), durationSeconds: 185.25, machine: "ci-runner-2",
            workers: 2, devices: 5_000, target: target, pushDeadlineMicros: 2_000_000, shard: "1/4",
            commandLine: "callstorm run Scenarios/nightly.yaml --seed 42", interrupted: interrupted
        )
    }

    /// Three seconds of push_to_report, one second of dial_to_ring, two counters and one gauge.
    private func syntheticRecorder() -> Recorder {
        var recorder = Recorder(runStartNanos: start)
        func at(_ second: Double) -> UInt64 { start + UInt64(second * 1e9) }
        for second in 0..<3 {
            for index in 0..<100 {
                let micros = Int64(1_000 * (index + 1)) + Int64(second) * 500_000
                recorder.record(Metric(named: "push_to_report"), micros: micros, atNanos: at(Double(second) + Double(index) / 200))
            }
            recorder.count(Metric(named: "calls.started"), by: 10, atNanos: at(Double(second)))
            recorder.count(Metric(named: "calls.completed"), by: Int64(second * 4), atNanos: at(Double(second) + 0.5))
        }
        recorder.record(Metric(named: "dial_to_ring"), micros: 1_234, atNanos: at(1.1))
        recorder.record(Metric(named: "odd, \"name\""), micros: 7, atNanos: at(1.1))
        recorder.gauge("active_conversations", value: 12, atNanos: at(2.2))
        recorder.seal()
        return recorder
    }

    private func read(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    // MARK: - CSV

    func testSummaryCSVHasExactHeaderAndOneRowPerMetricInMilliseconds() throws {
        let result = RunResult(facts: facts(), recorder: syntheticRecorder(), verdict: Verdict(passed: true))
        let files = try ReportWriter.write(result, to: directory)
        let rows = CSVParser.parse(try read(files.summaryCSV))
        XCTAssertEqual(rows.first, ["metric", "count", "min", "p50", "p90", "p99", "p99.9", "max", "mean", "unit"])
        XCTAssertEqual(rows.count, 4)
        XCTAssertEqual(rows.dropFirst().map { $0[0] }, ["dial_to_ring", "odd, \"name\"", "push_to_report"])
        XCTAssertEqual(rows[1], ["dial_to_ring", "1"] + Array(repeating: "1.234", count: 7) + ["ms"])
        let push = rows[3]
        XCTAssertEqual(push[1], "300")
        XCTAssertEqual(push[2], "1.000")
        XCTAssertEqual(push[7], "1100.000")
        XCTAssertEqual(push[9], "ms")
        XCTAssertTrue(try read(files.summaryCSV).contains("\"odd, \"\"name\"\"\""))
    }

    func testCountersCSVIsSortedWithTotals() throws {
        let result = RunResult(facts: facts(), recorder: syntheticRecorder(), verdict: Verdict(passed: true))
        let files = try ReportWriter.write(result, to: directory)
        let rows = CSVParser.parse(try read(files.countersCSV))
        XCTAssertEqual(rows, [["counter", "value"], ["calls.completed", "12"], ["calls.started", "30"]])
    }

    func testTimeseriesCSVHasOneRowPerSecondPerMetricCounterAndGauge() throws {
        let result = RunResult(facts: facts(), recorder: syntheticRecorder(), verdict: Verdict(passed: true))
        let files = try ReportWriter.write(result, to: directory)
        let rows = CSVParser.parse(try read(files.timeseriesCSV))
        XCTAssertEqual(rows.first, ["second", "metric", "count", "p50", "p90", "p99", "max", "value"])
        // push 3 + dial 1 + odd 1 + started 3 + completed 3 + gauge 1
        XCTAssertEqual(rows.count - 1, 12)
        XCTAssertTrue(rows.allSatisfy { $0.count == 8 })
        let seconds = rows.dropFirst().map { Int($0[0])! }
        XCTAssertEqual(seconds, seconds.sorted())
        let pushSecond2 = rows.first { $0[0] == "2" && $0[1] == "push_to_report" }
        XCTAssertEqual(pushSecond2?[2], "100")
        // Exact median 1050 ms; HdrHistogram reports its slot's highest equivalent value, within 0.1 %.
        XCTAssertEqual(Double(pushSecond2?[3] ?? "") ?? 0, 1_050, accuracy: 1.05)
        XCTAssertEqual(pushSecond2?[6], "1100.000")
        XCTAssertEqual(pushSecond2?[7], "")
        XCTAssertEqual(rows.first { $0[0] == "1" && $0[1] == "calls.completed" }?[7], "4")
        XCTAssertEqual(rows.first { $0[1] == "active_conversations" },
                       ["2", "active_conversations", "", "", "", "", "", "12"])
    }

    /// timeseries.csv is written as bytes (issue 33): the same text as rows of `String`s through `CSVTable`, as
    /// it was written before, escaped metric name included.
    func testTimeseriesCSVIsTheTextOfItsRowsAsStrings() {
        let recorder = syntheticRecorder()
        var bySecond: [Int: [[String]]] = [:]
        for name in recorder.metricNames {
            for s in recorder.intervalStats(name) {
                bySecond[s.second, default: []].append([String(s.second), name, String(s.count),
                    ReportFormat.millis(s.p50), ReportFormat.millis(s.p90), ReportFormat.millis(s.p99),
                    ReportFormat.millis(s.max), ""])
            }
        }
        for name in recorder.counterNames {
            for e in recorder.counterSeries(name) {
                bySecond[e.second, default: []].append([String(e.second), name, "", "", "", "", "", String(e.value)])
            }
        }
        for name in recorder.gaugeNames {
            for e in recorder.gaugeSeries(name) {
                bySecond[e.second, default: []].append([String(e.second), name, "", "", "", "", "",
                                                        ReportFormat.number(e.value)])
            }
        }
        var table = CSVTable(header: ReportWriter.timeseriesHeader)
        for second in bySecond.keys.sorted() { bySecond[second]!.forEach { table.append($0) } }
        XCTAssertEqual(ReportWriter.timeseriesCSV(recorder), table.rendered())
    }

    /// The .hlog interval lines are written as bytes (issue 33): the text the interpolated `String`s made before.
    func testHdrLogLinesAreTheTextOfTheInterpolatedStrings() throws {
        let start = Date(timeIntervalSince1970: 1_765_000_000.25)
        let recorder = syntheticRecorder()
        XCTAssertFalse(recorder.intervals.isEmpty)
        for (metric, intervals) in recorder.intervals {
            let text = HdrLog.text(metric: metric, intervals: intervals, startedAt: start)
            var expected = ""
            for second in intervals.keys.sorted() where !intervals[second]!.isEmpty {
                let interval = intervals[second]!
                let payload = Data(HdrLog.compressed(interval.encodedV2(), deflater: HdrDeflater()))
                    .base64EncodedString()
                expected += "\(second).000,1.000,\(ReportFormat.millis(interval.max)),\(payload)\n"
            }
            XCTAssertFalse(expected.isEmpty, metric)
            XCTAssertTrue(text.hasSuffix("\"Interval_Compressed_Histogram\"\n" + expected), metric)
        }
    }

    /// The .hlog payloads are base64'd straight into the line: the text `Data.base64EncodedData()` writes, for
    /// every length's padding (0, 1 and 2 bytes left over) and every byte value.
    func testBase64TextIsFoundationsBase64() {
        for count in 0..<70 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ count &* 31 &+ ($0 % 7 == 0 ? 255 : 0)) }
            var out: [UInt8] = [0x2C]
            bytes.withUnsafeBufferPointer { Base64Text.append($0, to: &out) }
            XCTAssertEqual(out, [0x2C] + Array(Data(bytes).base64EncodedData()), "\(count)")
        }
        var all: [UInt8] = []
        let every = (0...255).map { UInt8($0) }
        every.withUnsafeBufferPointer { Base64Text.append($0, to: &all) }
        XCTAssertEqual(all, Array(Data(every).base64EncodedData()))
    }

    func testMillisAsBytesIsTheMillisText() {
        for micros: Int64 in [0, 1, 9, 10, 99, 100, 999, 1_000, 1_001, 1_234, 1_050_000, -1, -999, -1_000, -1_234_567,
                              .max, .min, .min + 1] {
            var out: [UInt8] = []
            ReportFormat.appendMillis(micros, to: &out)
            XCTAssertEqual(String(decoding: out, as: UTF8.self), ReportFormat.millis(micros), "\(micros)")
        }
    }

    // MARK: - JSON

    func testSummaryJSONHasSchemaFactsVerdictMetricsAndCounters() throws {
        let verdict = Verdict(passed: false, reasons: ["push_to_report.p99 1.1s ≥ 1s"])
        let result = RunResult(facts: facts(), recorder: syntheticRecorder(), verdict: verdict, notes: ["lag ok"])
        let files = try ReportWriter.write(result, to: directory)
        let data = try Data(contentsOf: files.summaryJSON)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        XCTAssertEqual(object["schema"] as? String, "callstorm.summary/1")
        let factsObject = try XCTUnwrap(object["facts"] as? [String: Any])
        XCTAssertEqual(factsObject["seed"] as? Int, 42)
        XCTAssertEqual(factsObject["startedAt"] as? String, "2026-11-30T00:53:20Z")
        let verdictObject = try XCTUnwrap(object["verdict"] as? [String: Any])
        XCTAssertEqual(verdictObject["passed"] as? Bool, false)
        let metrics = try XCTUnwrap(object["metrics"] as? [String: [String: Any]])
        XCTAssertEqual(metrics["dial_to_ring"]?["p999"] as? Double, 1.234)
        XCTAssertEqual(metrics["push_to_report"]?["count"] as? Int, 300)
        XCTAssertEqual(metrics["push_to_report"]?["unit"] as? String, "ms")
        let counters = try XCTUnwrap(object["counters"] as? [String: Any])
        XCTAssertEqual(counters["calls.started"] as? Int, 30)
        XCTAssertEqual(try ReportSummary.decode(from: data), ReportSummary(result))
    }

    func testSummaryJSONIsByteStableForTheSameRun() throws {
        let result = RunResult(facts: facts(), recorder: syntheticRecorder(), verdict: Verdict(passed: true))
        XCTAssertEqual(try ReportSummary(result).encoded(), try ReportSummary(result).encoded())
        let text = String(decoding: try ReportSummary(result).encoded(), as: UTF8.self)
        let keys = ["\"counters\"", "\"facts\"", "\"metrics\"", "\"notes\"", "\"schema\"", "\"verdict\""]
        let positions = keys.map { text.range(of: $0)!.lowerBound }
        XCTAssertEqual(positions, positions.sorted())
    }

    // MARK: - HTML

    func testHTMLIsSelfContainedWithChartsAndEscapedText() throws {
        let result = RunResult(
            facts: facts(target: "http://127.0.0.1:8080"), recorder: syntheticRecorder(),
            verdict: Verdict(passed: false, reasons: ["deadline_miss_rate 3% > 0.5% <b>"]),
            notes: ["note with <script>alert(1)</script>"],
            faultWindows: [FaultSpan(fromSecond: 1, toSecond: 2, label: "push delay")]
        )
        let files = try ReportWriter.write(result, to: directory)
        let html = try read(files.html)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(html.contains("<svg"))
        XCTAssertTrue(html.contains("FAIL"))
        XCTAssertTrue(html.contains("deadline_miss_rate 3% &gt; 0.5% &lt;b&gt;"))
        XCTAssertFalse(html.contains("<script>alert(1)"))
        XCTAssertFalse(html.contains("<script src"), "inline script only")
        XCTAssertTrue(html.contains("nightly &lt;merge &amp; race&gt;"))
        // The target URL appears as text only; nothing is loaded from anywhere.
        let external = try NSRegularExpression(
            pattern: "(src|href)\\s*=\\s*[\"']?\\s*(https?:)?//|url\\(|@import|<link|<iframe|<img",
            options: [.caseInsensitive])
        XCTAssertEqual(external.numberOfMatches(in: html, range: NSRange(html.startIndex..., in: html)), 0)
        XCTAssertTrue(html.contains("stroke-dasharray=\"6 4\""), "deadline reference line")
        XCTAssertTrue(html.contains("calls.completed"))
        XCTAssertTrue(html.contains("99.9%"), "percentile axis labels")
        XCTAssertTrue(html.contains("push delay"), "fault window shading")
        XCTAssertTrue(html.contains("@media print"))
        XCTAssertTrue(html.contains("2026-11-30T00:53:20Z"))
    }

    func testHTMLWithEmbeddedTargetHasNoURLAtAll() throws {
        let result = RunResult(facts: facts(), recorder: syntheticRecorder(), verdict: Verdict(passed: true))
        let html = try read(try ReportWriter.write(result, to: directory).html)
        XCTAssertFalse(html.contains("http://"))
        XCTAssertFalse(html.contains("https://"))
        XCTAssertTrue(html.contains("PASS"))
    }

    // MARK: - Empty

    func testEmptyRecorderStillWritesEveryFile() throws {
        let result = RunResult(
            facts: facts(interrupted: true), recorder: Recorder(runStartNanos: start), verdict: Verdict(passed: true))
        let files = try ReportWriter.write(result, to: directory)
        for url in files.all {
            XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), url.lastPathComponent)
        }
        XCTAssertEqual(CSVParser.parse(try read(files.summaryCSV)).count, 1)
        XCTAssertEqual(CSVParser.parse(try read(files.countersCSV)).count, 1)
        XCTAssertEqual(CSVParser.parse(try read(files.timeseriesCSV)).count, 1)
        let html = try read(files.html)
        XCTAssertTrue(html.contains("no samples"))
        XCTAssertTrue(html.contains("interrupted"))
        let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: files.summaryJSON)) as? [String: Any]
        XCTAssertEqual(object?["schema"] as? String, "callstorm.summary/1")
    }

    func testWritingIntoAFileThatIsNotADirectoryFailsWithPath() throws {
        let parent = directory.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let blocker = parent.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        let result = RunResult(facts: facts(), recorder: Recorder(runStartNanos: start), verdict: Verdict(passed: true))
        XCTAssertThrowsError(try ReportWriter.write(result, to: blocker.appendingPathComponent("run"))) { error in
            guard case ReportError.cannotCreateDirectory(let path, _) = error else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertTrue(path.hasSuffix("blocker/run"))
        }
    }
}
