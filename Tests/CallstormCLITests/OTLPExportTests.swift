import Foundation
import TestSupport
import XCTest

/// Issue 38: `run --otlp` to a test receiver that decodes with PyPI's opentelemetry-proto (scripts/otlp-receiver.py):
/// the exported counters equal summary.json's, the histograms agree within their precision, every sampled call is
/// one trace of action spans; and with the receiver stopped the run completes, counts what it lost and exits as
/// it would have.
final class OTLPExportTests: XCTestCase {
    private var dir: URL!
    private let repository = MetricsEndpointTests.repository

    override func setUpWithError() throws {
        let probe = try ExternalTool.run("python3", ["-c", "import opentelemetry.proto"])
        if probe.status != 0 {
            throw XCTSkip("PyPI opentelemetry-proto is not installed (scripts/test-deps.sh installs it)")
        }
        dir = try TemporaryDirectory.make("otlp")
    }

    override func tearDown() { if let dir { TemporaryDirectory.remove(dir) } }

    /// Starts the receiver; returns it and its port.
    private func startReceiver() throws -> (ChildProcess, Int) {
        let portFile = dir.appendingPathComponent("port")
        let receiver = try ChildProcess.start("/usr/bin/env", [
            "python3", repository.appendingPathComponent("scripts/otlp-receiver.py").path,
            dir.appendingPathComponent("received.jsonl").path, portFile.path,
        ], in: dir, logs: dir, name: "receiver")
        for _ in 0..<200 {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) {
                return (receiver, port)
            }
            usleep(50_000)
        }
        receiver.stop()
        throw XCTSkip("the test receiver did not start: \(receiver.errorText)")
    }

    private func run(otlp url: String, share: String) throws -> (status: Int32?, run: URL, err: String) {
        guard let bin = ChildProcess.callstormBinary else { throw XCTSkip("CALLSTORM_BIN is not set") }
        let run = dir.appendingPathComponent("run")
        let result = try ChildProcess.run("/usr/bin/env", [
            "CALLSTORM_OTLP_TRACE_SHARE=\(share)", "CALLSTORM_OTLP_INTERVAL_MS=1000", bin, "run",
            repository.appendingPathComponent("Scenarios/smoke.yaml").path, "--out", run.path, "--quiet",
            "--duration", "3s", "--otlp", url,
        ], in: dir, logs: dir, name: "callstorm", seconds: 180)
        return (result.status, run, result.err)
    }

    private func summary(_ run: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("summary.json")))
            as! [String: Any]
    }

    func testExportedFiguresEqualTheSummaryAndEveryCallIsOneTraceOfActionSpans() throws {
        let (receiver, port) = try startReceiver()
        defer { receiver.stop() }
        let result = try run(otlp: "http://127.0.0.1:\(port)", share: "1")
        XCTAssertEqual(result.status, 0, result.err)
        let check = try ExternalTool.run("python3", [
            repository.appendingPathComponent("scripts/otlp-check-run.py").path, result.run.path,
            dir.appendingPathComponent("received.jsonl").path,
        ])
        XCTAssertEqual(check.status, 0, check.stderr)
        let figures = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(figures["problems"] as? [String], [], check.stdout)
        let counters = try summary(result.run)["counters"] as! [String: Int]
        // Every call traced (share 1): one trace per started call, each with its start, join and end spans.
        XCTAssertEqual(figures["traced_calls"] as? Int, counters["calls.started"])
        XCTAssertEqual(figures["span_names"] as? [String], ["call", "end", "join", "start"])
        XCTAssertEqual(counters["otlp.dropped"], 0)
        XCTAssertEqual(counters["otlp.spans_exported"], figures["spans"] as? Int)
        XCTAssertGreaterThan(figures["metrics_requests"] as? Int ?? 0, 1)
    }

    func testWithTheReceiverStoppedTheRunCompletesCountsTheDroppedSpansAndBalancesItsBooks() throws {
        let (receiver, port) = try startReceiver()
        receiver.stop()  // nothing listens on the port any more
        let result = try run(otlp: "http://127.0.0.1:\(port)", share: "1")
        XCTAssertEqual(result.status, 0, "smoke passes with or without a collector: \(result.err)")
        let summary = try summary(result.run)
        let counters = summary["counters"] as! [String: Int]
        let calls = counters["calls.started"] ?? 0
        XCTAssertGreaterThan(calls, 0)
        // Each call is a call span and its start, join and end: all lost, all counted.
        XCTAssertEqual(counters["otlp.dropped"], 4 * calls)
        XCTAssertEqual(counters["otlp.spans_exported"], 0)
        XCTAssertEqual((summary["books"] as? [String: Any])?["problems"] as? [String], [])
    }
}
