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
    private func startReceiver(environment: [String] = []) throws -> (ChildProcess, Int) {
        let portFile = dir.appendingPathComponent("port")
        let receiver = try ChildProcess.start("/usr/bin/env", environment + [
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

    /// smoke.yaml with an `observability:` section: the share of calls traced and a 1 s interval, and the
    /// endpoint when `scenarioEndpoint` (else `--otlp`). The target logs each request's traceparent.
    private func run(otlp url: String, share: String, scenarioEndpoint: Bool = false) throws
        -> (status: Int32?, run: URL, err: String) {
        guard let bin = ChildProcess.callstormBinary else { throw XCTSkip("CALLSTORM_BIN is not set") }
        let run = dir.appendingPathComponent("run")
        let smoke = try String(contentsOf: repository.appendingPathComponent("Scenarios/smoke.yaml"), encoding: .utf8)
        let endpoint = scenarioEndpoint ? "endpoint: \"\(url)\", " : ""
        let scenario = dir.appendingPathComponent("smoke-otlp.yaml")
        try (smoke + "observability:\n  otlp: { \(endpoint)interval: 1s, headers: { x-api-key: test-key } }\n"
            + "  trace: { share: \(share) }\n").write(to: scenario, atomically: true, encoding: .utf8)
        let result = try ChildProcess.run("/usr/bin/env", [
            "CALLSTORM_TARGET_TRACEPARENT_LOG=\(dir.appendingPathComponent("traceparents.log").path)",
            bin, "run", scenario.path, "--out", run.path, "--quiet", "--duration", "3s",
        ] + (scenarioEndpoint ? [] : ["--otlp", url]), in: dir, logs: dir, name: "callstorm", seconds: 180)
        return (result.status, run, result.err)
    }

    private func summary(_ run: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: run.appendingPathComponent("summary.json")))
            as! [String: Any]
    }

    func testExportedFiguresEqualTheSummaryAndEveryCallIsOneTraceOfActionSpans() throws {
        let (receiver, port) = try startReceiver()
        defer { receiver.stop() }
        let result = try run(otlp: "http://127.0.0.1:\(port)", share: "100%", scenarioEndpoint: true)
        XCTAssertEqual(result.status, 0, result.err)
        // Acceptance 2 too: the reference target's log of each request's traceparent joined with the spans.
        let check = try ExternalTool.run("python3", [
            repository.appendingPathComponent("scripts/otlp-check-run.py").path, result.run.path,
            dir.appendingPathComponent("received.jsonl").path, dir.appendingPathComponent("traceparents.log").path,
        ])
        XCTAssertEqual(check.status, 0, check.stderr)
        let figures = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(figures["problems"] as? [String], [], check.stdout)
        let counters = try summary(result.run)["counters"] as! [String: Int]
        // Every call traced (share 1): one trace per started call, each with its start, join and end spans and the
        // callee's VoIP push (sent → delivered → reported).
        XCTAssertEqual(figures["traced_calls"] as? Int, counters["calls.started"])
        XCTAssertEqual(figures["span_names"] as? [String], ["call", "end", "join", "push", "start"])
        XCTAssertEqual(counters["otlp.dropped"], 0)
        let metrics = try summary(result.run)["metrics"] as? [String: Any]
        let reports = (metrics?["push_to_report"] as? [String: Any])?["count"]
        XCTAssertEqual(figures["push_spans_reported"] as? Int, reports as? Int)
        XCTAssertEqual(figures["push_spans"] as? Int, counters["calls.started"])
        XCTAssertEqual(counters["otlp.spans_exported"], figures["spans"] as? Int)
        XCTAssertGreaterThan(figures["metrics_requests"] as? Int ?? 0, 1)
        // The scenario's `observability.otlp.headers` on every request.
        XCTAssertEqual(figures["api_keys"] as? [String], ["test-key"])
        // Each call's start, join and end reached the target with the call's trace context.
        XCTAssertEqual(figures["traceparent_requests"] as? Int, 3 * (counters["calls.started"] ?? 0))
    }

    /// Acceptance 1's findings: against the reference target's merge-lost-update bug the checker names violations,
    /// and each is a `checker finding` span with checker.json's number, rule and conversation, in the trace of the
    /// call that ran that conversation, under a `call` span: the call's own when it was exported (it failed), its
    /// stub's when not (share 0 %: no call is exported for being sampled).
    func testEveryCheckerFindingIsASpanOnTheTraceOfItsCall() throws {
        guard let bin = ChildProcess.callstormBinary else { throw XCTSkip("CALLSTORM_BIN is not set") }
        let (receiver, port) = try startReceiver()
        defer { receiver.stop() }
        let race = try String(contentsOf: repository.appendingPathComponent("Scenarios/races/merge-vs-end.yaml"),
                              encoding: .utf8)
            .replacingOccurrences(of: "target: { embedded: true }",
                                  with: "target: { embedded: true, bugs: [merge-lost-update] }")
        let scenario = dir.appendingPathComponent("race-otlp.yaml")
        try (race + "observability: { otlp: { interval: 1s }, trace: { share: 0% } }\n")
            .write(to: scenario, atomically: true, encoding: .utf8)
        let run = dir.appendingPathComponent("run")
        let result = try ChildProcess.run(bin, [
            "run", scenario.path, "--out", run.path, "--quiet", "--duration", "3s",
            "--otlp", "http://127.0.0.1:\(port)",
        ], in: dir, logs: dir, name: "callstorm", seconds: 180)
        XCTAssertNotNil(result.status, result.err)
        let check = try ExternalTool.run("python3", [
            repository.appendingPathComponent("scripts/otlp-check-run.py").path, run.path,
            dir.appendingPathComponent("received.jsonl").path,
        ])
        let figures = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(figures["problems"] as? [String], [], check.stdout)
        let violations = figures["violations"] as? Int ?? 0
        XCTAssertGreaterThan(violations, 0, "the lost-update bug broke no rule in this run: \(check.stdout)")
        XCTAssertEqual(figures["findings"] as? Int, violations)
        XCTAssertEqual(figures["findings_on_call_traces"] as? Int, violations)
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
        // Each call is a call span, its start, join and end, and its VoIP push: all lost, all counted.
        XCTAssertEqual(counters["otlp.dropped"], 5 * calls)
        XCTAssertEqual(counters["otlp.spans_exported"], 0)
        XCTAssertEqual((summary["books"] as? [String: Any])?["problems"] as? [String], [])
    }

    /// A collector that asks to wait (429 Retry-After: 1) on every trace request and on each new metrics export
    /// once: the spans are lost and counted, and the run's last metrics export is sent again after the wait, so
    /// the last one received equals summary.json (it was lost when its own answer was "retry").
    func testACollectorAskingToWaitStillGetsTheFinalMetricsAndTheLostSpansAreCounted() throws {
        let (receiver, port) = try startReceiver(environment: ["OTLP_RECEIVER_TRACES_WAIT=1",
                                                               "OTLP_RECEIVER_METRICS_WAIT=1"])
        defer { receiver.stop() }
        let result = try run(otlp: "http://127.0.0.1:\(port)", share: "100%")
        XCTAssertEqual(result.status, 0, result.err)
        let check = try ExternalTool.run("python3", [
            repository.appendingPathComponent("scripts/otlp-check-run.py").path, result.run.path,
            dir.appendingPathComponent("received.jsonl").path, dir.appendingPathComponent("traceparents.log").path,
        ])
        let figures = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as! [String: Any]
        let problems = (figures["problems"] as? [String] ?? []).filter { $0.hasPrefix("counter") || $0.hasPrefix("no ") }
        XCTAssertEqual(problems, [], "the last metrics export arrived and equals summary.json")
        let counters = try summary(result.run)["counters"] as! [String: Int]
        XCTAssertEqual(counters["otlp.spans_exported"], 0)
        XCTAssertEqual(counters["otlp.dropped"], 5 * (counters["calls.started"] ?? 0))
    }
}
