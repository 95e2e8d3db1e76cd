import Foundation
import Metrics
import Results
import TestSupport

/// Waits for what a run has measured, read from its checkpoints (raw/recorder-w*.json, rewritten every 2 s), so a
/// test that interrupts a run does so once the run has done enough, not after a guessed number of seconds.
enum RunCheckpoints {
    /// Whether, within `seconds`, the run's checkpoints show at least `calls` calls started, `completed` calls
    /// ended and `reports` push-to-report samples (across every worker's latest checkpoint).
    static func waitFor(_ run: URL, callsStarted calls: Int64, callsCompleted completed: Int64 = 0,
                        pushReports reports: Int64, seconds: Double = 60) -> Bool {
        // A checkpoint changes every 2 s; reading it every 50 ms notices a new one soon without decoding it
        // hundreds of times a second.
        eventually(seconds, every: 0.05) {
            guard let recorder = try? RunResults.loadRecorder(run: run, series: false) else { return false }
            let started = recorder.counters[MetricName.callsStarted] ?? 0
            let reported = recorder.histograms[MetricName.pushToReport]?.totalCount ?? 0
            let ended = recorder.counters[MetricName.callsCompleted] ?? 0
            return started >= calls && ended >= completed && reported >= reports
        }
    }
}
