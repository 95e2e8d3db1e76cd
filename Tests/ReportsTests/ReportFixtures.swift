import Foundation
import Metrics
@testable import Reports
import Thresholds

/// A small but complete run: push latencies over three seconds, three action kinds with outcomes and flow
/// steps, errors, deadline misses, gauges and thresholds (one failing).
enum ReportFixtures {
    static let start: UInt64 = 1_000_000_000_000

    static func facts(interrupted: Bool = false) -> RunFacts {
        RunFacts(
            scenario: "fixture", scenarioFile: "Scenarios/fixture.yaml", seed: 7, version: "0.1.0",
            startedAt: Date(timeIntervalSince1970: 1_796_000_000), durationSeconds: 3.5, machine: "test-host",
            workers: 2, devices: 100, target: "embedded", pushDeadlineMicros: 2_000_000,
            commandLine: "callstorm run fixture.yaml", interrupted: interrupted)
    }

    static func recorder() -> Recorder {
        var recorder = Recorder(runStartNanos: start)
        func at(_ second: Double) -> UInt64 { start + UInt64(second * 1e9) }
        for second in 0..<3 {
            for index in 0..<100 {
                let micros = Int64(1_000 * (index + 1)) + Int64(second) * 50_000
                recorder.record(Metric(named: "push_to_report"), micros: micros, atNanos: at(Double(second) + Double(index) / 200))
                recorder.count(Metric(named: "pushes.received.voip"), atNanos: at(Double(second)))
            }
            for kind in ["start", "join", "end", "merge"] {
                recorder.record(Metric(named: "\(kind).fulfillment"), micros: Int64(20_000 + second * 1_000), atNanos: at(Double(second)))
                recorder.count(Metric(named: "action.\(kind).started"), by: 2, atNanos: at(Double(second)))
                recorder.count(Metric(named: "action.\(kind).fulfilled"), atNanos: at(Double(second)))
                recorder.count(Metric(named: "action.\(kind).failed"), atNanos: at(Double(second)))
            }
            recorder.record(Metric(named: "scheduler_lag"), micros: 300, atNanos: at(Double(second)))
            recorder.count(Metric(named: "calls.planned"), by: 10, atNanos: at(Double(second)))
            recorder.count(Metric(named: "calls.started"), by: 10, atNanos: at(Double(second)))
            recorder.count(Metric(named: "calls.completed"), by: 9, atNanos: at(Double(second) + 0.5))
            recorder.count(Metric(named: "errors.timeout"), atNanos: at(Double(second)))
            recorder.gauge("conversations.active", value: Double(5 + second), atNanos: at(Double(second)))
            recorder.gauge("harness.rss_mib", value: 40, atNanos: at(Double(second)))
        }
        recorder.count(Metric(named: "push.deadline_missed"), by: 3, atNanos: at(2))
        recorder.count(Metric(named: "devices.registered"), by: 100, atNanos: at(0))
        recordSteps(into: &recorder)
        return recorder
    }

    /// One flow step's actions as the driver records them when each finishes: one in ten failed.
    static func recordSteps(into recorder: inout Recorder) {
        let step = "incoming-1to1/answer"
        for index in 0..<50 {
            let at = start + UInt64(index) * 20_000_000
            recorder.record(.fulfillment("join", step: step), micros: Int64(10_000 + index * 100), atNanos: at)
            recorder.record(.fulfillmentFromPlanned("join", step: step), micros: Int64(11_000 + index * 100),
                            atNanos: at)
            recorder.count(.stepOutcome("join", step: step, label: index % 10 == 0 ? "failed" : "fulfilled"),
                           atNanos: at)
        }
    }

    static func thresholds() -> [Threshold] {
        [
            try! Threshold.parse(key: "push_to_report.p99", expression: "< 1s", source: "fixture.yaml:3:3"),
            try! Threshold.parse(key: "deadline_miss_rate", expression: "< 0.5%", source: "fixture.yaml:4:3"),
            try! Threshold.parse(key: "join.fulfillment@incoming-1to1/answer.p95", expression: "< 800ms"),
        ]
    }

    /// The result as the CLI builds it: thresholds evaluated, verdict from them.
    static func result(interrupted: Bool = false, thresholds: [Threshold] = thresholds()) -> RunResult {
        var result = RunResult(facts: facts(interrupted: interrupted), recorder: recorder(),
                               verdict: Verdict(passed: true), notes: ["fixture note"])
        let histograms = result.histograms
        result.thresholds = thresholds.map { $0.evaluate(histograms: histograms, counters: result.recorder.counters) }
        result.verdict = Verdict(thresholds: result.thresholds)
        return result
    }
}
