import Determinism
import Foundation
import Metrics
import XCTest
@testable import Reports
import TestSupport
import TextEscaping

/// The same figure must read the same everywhere: summary.csv, report.html, summary.json, and the .hlog files
/// as decoded by another HdrHistogram implementation (Python's `hdrh`).
final class PercentileAgreementTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws { directory = TemporaryDirectory.path("agreement") }
    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    func testPercentilesAgreeExactlyAcrossSummaryCSVHTMLAndJSON() throws {
        let result = ReportFixtures.result()
        let files = try ReportWriter.write(result, to: directory)
        let csv = CSVParser.parse(try String(contentsOf: files.summaryCSV, encoding: .utf8))
        let header = csv[0]
        let html = try String(contentsOf: files.html, encoding: .utf8)
        let summary = try ReportSummary.decode(from: try Data(contentsOf: files.summaryJSON))
        XCTAssertEqual(csv.count - 1, result.histograms.count)
        for row in csv.dropFirst() {
            let name = row[0]
            func column(_ title: String) -> String { row[header.firstIndex(of: title)!] }
            let json = try XCTUnwrap(summary.metrics[name], name)
            // JSON numbers are milliseconds; the CSV's three decimals are the same microseconds.
            XCTAssertEqual(ReportFormat.millis(Int64((json.p50 * 1000).rounded())), column("p50"), name)
            XCTAssertEqual(ReportFormat.millis(Int64((json.p99 * 1000).rounded())), column("p99"), name)
            XCTAssertEqual(ReportFormat.millis(Int64((json.p999 * 1000).rounded())), column("p99.9"), name)
            XCTAssertEqual(String(json.count), column("count"), name)
            // The HTML row holds count, p50, p90, p99, p99.9, max in that order.
            let cells = ["count", "p50", "p90", "p99", "p99.9", "max"].map { "<td>\(column($0))</td>" }.joined()
            XCTAssertTrue(html.contains("<tr data-metric=\"\(name.markupEscaped)\"><th scope=\"row\">"
                + "\(name.markupEscaped)</th>\(cells)</tr>"), "HTML row of \(name)")
        }
        XCTAssertNotNil(summary.metrics["join.fulfillment@incoming-1to1/answer"], "flow-step metrics are included")
    }

    func testCompressedEncodingRoundTripsThroughZlib() throws {
        var histogram = HdrHistogram()
        for value in [1, 7, 1_000, 123_456, 3_000_000, 3_000_001] { histogram.record(Int64(value), count: 3) }
        let decoded = try HdrLog.decompress(HdrLog.compressed(histogram.encodedV2()))
        XCTAssertEqual(decoded.totalCount, histogram.totalCount)
        // Every slot and count survives; only the exact min and max are not part of the format.
        XCTAssertEqual(decoded.sparse.indices, histogram.sparse.indices)
        XCTAssertEqual(decoded.sparse.counts, histogram.sparse.counts)
    }

    /// An interval longer than `HdrLog.smallInput` goes through compress2, a short one through the smaller hash
    /// table: both decode to every slot and count.
    func testLongAndShortEncodingsBothRoundTripThroughZlib() throws {
        var long = HdrHistogram()
        for value in stride(from: 1, to: 4_000_000, by: 997) { long.record(Int64(value), count: Int64(value % 5 + 1)) }
        var short = HdrHistogram()
        short.record(250, count: 20)
        let encodings = [long.encodedV2(), short.encodedV2()]
        XCTAssertGreaterThan(encodings[0].count, HdrLog.smallInput)
        XCTAssertLessThanOrEqual(encodings[1].count, HdrLog.smallInput)
        for (histogram, encoding) in zip([long, short], encodings) {
            let decoded = try HdrLog.decompress(HdrLog.compressed(encoding))
            XCTAssertEqual(decoded.totalCount, histogram.totalCount)
            XCTAssertEqual(decoded.sparse.indices, histogram.sparse.indices)
            XCTAssertEqual(decoded.sparse.counts, histogram.sparse.counts)
        }
    }

    /// One deflater reset between intervals (as a report's `.hlog` files share it) writes the bytes a fresh stream
    /// per interval writes, whatever came before: the files stay byte for byte what they were.
    func testASharedDeflaterWritesTheBytesOfAFreshStreamPerInterval() throws {
        var rng = SeededRandom(splitMix: 5)
        let shared = HdrDeflater()
        var encodings: [[UInt8]] = []
        for round in 0..<40 {
            var histogram = HdrHistogram()
            for _ in 0..<(round % 7 + 1) * 3 { histogram.record(Int64(rng.next() % 5_000_000) + 1, count: 1) }
            encodings.append(histogram.encodedV2())
        }
        XCTAssertTrue(encodings.allSatisfy { $0.count <= HdrLog.smallInput })
        for encoding in encodings {
            XCTAssertEqual(HdrLog.compressed(encoding, deflater: shared), HdrLog.compressed(encoding))
        }
    }

    /// Python's hdrh rounds the rank half up where HdrHistogram's Java and C code (and callstorm) take the
    /// ceiling, so the sample count is a multiple of 100: then both read the same rank and must give the same p99.
    func testPythonHdrHistogramDecodesTheIntervalLogsToTheSameP99() throws {
        var recorder = Recorder(runStartNanos: ReportFixtures.start)
        var rng = SeededRandom(splitMix: 11)
        for index in 0..<20_000 {
            let micros = Int64(200 + rng.next() % 900_000) + (index % 97 == 0 ? 4_000_000 : 0)
            recorder.record(Metric(named: "push_to_report"), micros: micros,
                            atNanos: ReportFixtures.start + UInt64(index) * 400_000)
        }
        let result = RunResult(facts: ReportFixtures.facts(), recorder: recorder, verdict: Verdict(passed: true))
        let files = try ReportWriter.write(result, to: directory)
        let hlog = files.hlogDirectory.appendingPathComponent("push_to_report.hlog")
        let csv = CSVParser.parse(try String(contentsOf: files.summaryCSV, encoding: .utf8))
        let p99Column = csv[0].firstIndex(of: "p99")!
        let csvP99 = try XCTUnwrap(csv.first { $0[0] == "push_to_report" }?[p99Column])

        let script = """
            import sys
            from hdrh.histogram import HdrHistogram
            from hdrh.log import HistogramLogReader
            total = HdrHistogram(1, 3600000000, 3)
            reader = HistogramLogReader(sys.argv[1], HdrHistogram(1, 3600000000, 3))
            intervals = 0
            while True:
                h = reader.get_next_interval_histogram()
                if h is None:
                    break
                intervals += 1
                total.add(h)
            print(intervals, total.get_total_count(), total.get_value_at_percentile(99))
            """
        let output = try runPython(script, arguments: [hlog.path])
        let fields = output.split(separator: " ").map(String.init)
        guard fields.count == 3 else { return XCTFail("expected 'intervals count p99' from Python, got: \(output)") }
        XCTAssertEqual(Int(fields[0]), recorder.intervals["push_to_report"]?.count)
        XCTAssertEqual(Int64(fields[1]), 20_000)
        let pythonP99 = try XCTUnwrap(Int64(fields[2].trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(ReportFormat.millis(pythonP99), csvP99)
        XCTAssertEqual(pythonP99, recorder.histograms["push_to_report"]!.value(atPercentile: 99))
    }

    private func runPython(_ script: String, arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, String(decoding: errors, as: UTF8.self))
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

