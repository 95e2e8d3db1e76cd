import Foundation
import Metrics
import Reports

/// A small run result for command tests that need a summary.json without running load.
enum ReportFixturesCLI {
    static func result() -> RunResult {
        var recorder = Recorder(runStartNanos: 1_000_000_000)
        for index in 0..<1_000 {
            let at = 1_000_000_000 + UInt64(index) * 5_000_000
            recorder.record(Metric(named: "push_to_report"), micros: Int64(2_000 + index * 37), atNanos: at)
            recorder.record(Metric(named: "join.fulfillment"), micros: Int64(10_000 + index * 11), atNanos: at)
        }
        recorder.count(Metric(named: "calls.started"), by: 100, atNanos: 1_000_000_000)
        let facts = RunFacts(scenario: "cli", scenarioFile: "cli.yaml", seed: 1, version: "0.1.0",
                             startedAt: Date(timeIntervalSince1970: 1_796_000_000), durationSeconds: 5,
                             machine: "test", workers: 1, devices: 10, target: "embedded",
                             pushDeadlineMicros: 2_000_000, commandLine: "callstorm run cli.yaml")
        return RunResult(facts: facts, recorder: recorder, verdict: Verdict(passed: true))
    }
}
