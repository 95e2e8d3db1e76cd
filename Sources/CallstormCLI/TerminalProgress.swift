import Dispatch
import Driver
import Foundation
import Metrics

/// Something that shows the run's progress until stopped.
protocol ProgressDisplay {
    func stop()
}

extension ProgressLine: ProgressDisplay {}

/// The live view on a terminal, the plain line elsewhere (CI logs keep one line a second).
func makeProgress(driver: LoadDriver, settings: DriverSettings) -> ProgressDisplay {
    isatty(STDERR_FILENO) != 0 ? TerminalProgress(driver: driver, settings: settings) : ProgressLine(driver: driver)
}

/// A three-line view redrawn in place on stderr twice a second: elapsed of total with a bar, calls/s planned vs
/// delivered, active conversations, p99 of push_to_report and join, errors. It reads the driver's atomics and
/// the workers' published snapshots, never a worker's state.
final class TerminalProgress: ProgressDisplay, @unchecked Sendable {
    private let timer: DispatchSourceTimer
    private let queue = DispatchQueue(label: "callstorm.progress")
    // Touched only on `queue`.
    private var drawn = false
    private var lastStarted = 0
    private var lastElapsed = 0.0

    init(driver: LoadDriver, settings: DriverSettings) {
        timer = DispatchSource.makeTimerSource(queue: queue)
        let totalSeconds = Double(settings.plan.totalNanos) / 1e9
        let share = 1 / Double(settings.shard.count)
        timer.setEventHandler { [unowned self] in
            let p = driver.progress
            let live = driver.liveSnapshot
            let dt = p.elapsedSeconds - lastElapsed
            let delivered = dt > 0 ? Double(p.callsStarted - lastStarted) / dt : 0
            lastStarted = p.callsStarted
            lastElapsed = p.elapsedSeconds
            let t = UInt64(max(0, p.elapsedSeconds) * 1e9)
            let planned = settings.plan.plannedCount(from: t > 1_000_000_000 ? t - 1_000_000_000 : 0, to: t)
                * share / max(1e-9, min(1, p.elapsedSeconds))
            let errors = live.counters.filter { $0.key.hasPrefix(MetricName.errorsPrefix) }.values.reduce(0, +)
            let failed = live.counters[MetricName.callsFailed] ?? 0
            func p99(_ metric: String) -> String {
                guard let h = live.histograms[metric], !h.isEmpty else { return "–" }
                return String(format: "%.1f ms", Double(h.value(atPercentile: 99)) / 1000)
            }
            let fraction = totalSeconds > 0 ? min(1, p.elapsedSeconds / totalSeconds) : 1
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            let lines = [
                String(format: "callstorm %@ %6.1f s / %.1f s %3.0f%%", bar, p.elapsedSeconds, totalSeconds,
                       fraction * 100) + (p.elapsedSeconds > totalSeconds ? "  draining" : ""),
                String(format: "calls/s planned %7.1f  delivered %7.1f   active %6d   done %7d", planned, delivered,
                       p.activeConversations, p.callsCompleted),
                "p99 push→report \(p99(MetricName.pushToReport))   join \(p99(MetricName.fulfillment("join")))   " +
                    "errors \(errors)   failed calls \(failed)",
            ]
            var out = drawn ? "\u{1B}[\(lines.count)A" : ""
            for line in lines { out += "\r\u{1B}[2K" + line + "\n" }
            drawn = true
            FileHandle.standardError.write(Data(out.utf8))
        }
        timer.schedule(deadline: .now() + 0.5, repeating: 0.5)
        timer.resume()
    }

    func stop() {
        timer.cancel()
        queue.sync {}
    }
}
