import Foundation
import TestSupport
import XCTest

/// Acceptance 4 of issue 9: `curl` of `--metrics-listen` during a run returns exposition that prometheus-client's
/// text parser accepts, and after the run (the endpoint lingers) its values are the final report's.
final class MetricsEndpointTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TemporaryDirectory.make("metrics")
    }

    override func tearDown() { TemporaryDirectory.remove(dir) }

    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// curl, then the PyPI parser; fails the test on invalid exposition.
    private func scrape(_ url: String) throws -> [Sample]? {
        let curl = try ChildProcess.run("/usr/bin/curl", ["-sf", "--max-time", "5", url, "-o", dir.appendingPathComponent("scrape.txt").path],
                                        in: dir, logs: dir, name: "curl", seconds: 10)
        guard curl.status == 0 else { return nil }
        let parse = Process()
        parse.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        parse.arguments = ["python3", Self.repository.appendingPathComponent("scripts/parse-prometheus.py").path]
        parse.standardInput = try FileHandle(forReadingFrom: dir.appendingPathComponent("scrape.txt"))
        let out = Pipe()
        let err = Pipe()
        parse.standardOutput = out
        parse.standardError = err
        try parse.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        parse.waitUntilExit()
        XCTAssertEqual(parse.terminationStatus, 0, "prometheus-client rejected the exposition: \(errText)")
        guard parse.terminationStatus == 0 else { return [] }
        let rows = try JSONSerialization.jsonObject(with: data) as! [[String: Any]]
        return rows.map {
            Sample(name: $0["name"] as! String, labels: $0["labels"] as! [String: String],
                   value: ($0["value"] as? NSNumber)?.doubleValue ?? .nan)
        }
    }

    private func counters(_ samples: [Sample]) -> [String: Double] {
        // prometheus-client names counter samples with the _total suffix.
        var c: [String: Double] = [:]
        for s in samples where s.name == "callstorm_events_total" { c[s.labels["counter"]!] = s.value }
        return c
    }

    func testScrapeDuringTheRunParsesAndAgreesWithTheFinalReport() throws {
        guard let bin = ChildProcess.callstormBinary else { throw XCTSkip("CALLSTORM_BIN is not set") }
        // Arrivals planned for a minute, stopped by SIGINT once three scrapes saw the run going: how many scrapes
        // fit in the run never depends on how fast curl and the parser are on this machine.
        let file = dir.appendingPathComponent("s.yaml")
        try DistributedRunTests.scenario.replacingOccurrences(of: "hold: { rate: 40/s, for: 3s }",
                                                              with: "hold: { rate: 40/s, for: 60s }")
            .write(to: file, atomically: true, encoding: .utf8)
        let run = dir.appendingPathComponent("run")
        let child = try ChildProcess.start(bin, [
            "run", file.path, "--out", run.path, "--metrics-listen", "127.0.0.1:0", "--metrics-linger", "4s",
            "--quiet", "--shard", "0/1",
        ], in: dir, logs: dir, name: "run")
        defer { child.stop() }

        // The endpoint's address is on stderr (port 0 picks a free one).
        var url: String?
        for _ in 0..<100 where url == nil {
            usleep(100_000)
            if let line = child.errorText.split(separator: "\n").first(where: { $0.contains("metrics on ") }) {
                url = line.components(separatedBy: "metrics on ").last
            }
        }
        guard let url else { return XCTFail("no metrics address on stderr: \(child.errorText)") }

        // During the run: valid exposition, the run not final yet, counters growing.
        var during: [[String: Double]] = []
        let summaryFile = run.appendingPathComponent("shard.json")
        var interrupted = false
        while !FileManager.default.fileExists(atPath: summaryFile.path), child.process.isRunning {
            if let samples = try scrape(url) {
                XCTAssertEqual(samples.first { $0.name == "callstorm_run_info" }?.labels["shard"], "0/1")
                if samples.first(where: { $0.name == "callstorm_run_final" })?.value == 0 {
                    during.append(counters(samples))
                }
            }
            if !interrupted, during.count >= 3, during.contains(where: { ($0["calls.started"] ?? 0) > 0 }) {
                kill(child.process.processIdentifier, SIGINT)
                interrupted = true
            }
            // limits: a scraper's cadence against a real run (each scrape runs curl and a Python parser).
            usleep(500_000)
        }
        XCTAssertTrue(interrupted, "the run ended before three scrapes saw it: \(child.errorText)")
        XCTAssertGreaterThanOrEqual(during.count, 3, "scrapes during the run")
        XCTAssertTrue(during.contains { ($0["calls.started"] ?? 0) > 0 }, "a scrape saw calls in progress")

        // After the report is written the endpoint lingers with the final values.
        guard let final = try scrape(url) else { return XCTFail("no scrape after the run") }
        XCTAssertEqual(final.first { $0.name == "callstorm_run_final" }?.value, 1)
        let summary = try SummaryFile(run.appendingPathComponent("summary.json"))
        let scraped = counters(final)
        // The per-step figures (from actions.csv) are computed after the run, from files, so the live endpoint
        // never has them; the final counters (gateway books, checker) are served once the report is written.
        func live(_ name: String) -> Bool { !name.contains("@") }
        let reportCounters = summary.counters
        XCTAssertEqual(Set(scraped.keys), Set(reportCounters.keys))
        for (name, value) in reportCounters {
            XCTAssertEqual(scraped[name], Double(value), "counter \(name)")
            for earlier in during { XCTAssertLessThanOrEqual(earlier[name] ?? 0, Double(value), "\(name) only grows") }
        }
        for (metric, figures) in summary.metrics where live(metric) {
            let count = final.first { $0.name == "callstorm_latency_seconds_count" && $0.labels["metric"] == metric }
            XCTAssertEqual(count?.value, figures["count"], "\(metric) count")
            let inf = final.first {
                $0.name == "callstorm_latency_seconds_bucket" && $0.labels["metric"] == metric && $0.labels["le"] == "+Inf"
            }
            XCTAssertEqual(inf?.value, figures["count"], "\(metric) +Inf bucket")
            for (q, key) in [("0.5", "p50"), ("0.9", "p90"), ("0.99", "p99"), ("0.999", "p999")] {
                let v = final.first {
                    $0.name == "callstorm_latency_quantile_seconds" && $0.labels["metric"] == metric && $0.labels["quantile"] == q
                }
                guard let v, let reported = figures[key] else { XCTFail("\(metric) \(key) missing"); continue }
                XCTAssertEqual(v.value * 1000, reported, accuracy: 0.0011, "\(metric) \(key)")
            }
        }
        XCTAssertEqual(child.wait(seconds: 30), 130, "stopped by SIGINT: \(child.errorText)")
    }
}
