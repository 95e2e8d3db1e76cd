import Dispatch
import Faults
import Foundation
import Metrics
import RunFormats

/// The target windows as the load's clock passes them: kills and restarts of a target callstorm runs as a child
/// process (`TargetSchedule`), and socket storms through the embedded target's hook (`SocketStormSchedule`).
///
/// Ownership rule: `perform` on the fault controller's queue; kills and restarts block for a moment (waiting for
/// the child), so they run on a queue of their own and report back through `count`.
final class TargetControl: @unchecked Sendable {
    private let windows: [FaultWindow]
    private let target: ControlledTarget?
    private var targets: TargetSchedule
    private var storms: SocketStormSchedule
    private let dropEventSockets: (@Sendable (UInt16?) -> Int)?
    private let queue = DispatchQueue(label: "callstorm.faults.target")
    /// Where a kill is marked in the run's history (`raw/history-wfaults.jsonl`), so the checker knows the
    /// target's conversations died with it. Set before the load starts.
    var historyFile: URL?

    init(windows: [FaultWindow], target: ControlledTarget?, dropEventSockets: (@Sendable (UInt16?) -> Int)?) {
        self.windows = windows
        self.target = target
        self.targets = TargetSchedule(windows: windows)
        self.storms = SocketStormSchedule(windows: windows)
        self.dropEventSockets = dropEventSockets
    }

    /// Carries out what is due at `since`. `count` adds to the controller's counters (on its queue).
    func perform(since: UInt64, now: UInt64, run: FaultRunContext, recorder: inout Recorder,
                 count: @escaping @Sendable (Metric) -> Void) {
        for i in storms.due(at: since) { storm(window: i, since: since, now: now, run: run, recorder: &recorder) }
        guard let target else { return }
        for step in targets.due(at: since) {
            switch step {
            case .kill(let i):
                kill(target, window: i, since: since, now: now, run: run)
                recorder.count(Metric.fault(TargetKillFault.killed), atNanos: now)
            case .restart(let i):
                restart(target, window: i, since: since, run: run, count: count)
            }
        }
    }

    /// Waits for the kills and restarts under way.
    func settle() { queue.sync {} }

    /// Has the embedded target end every event socket for window `i`'s storm; counts the sockets it ended
    /// (`socket.storm_dropped`, which the books set apart as callstorm's doing).
    private func storm(window i: Int, since: UInt64, now: UInt64, run: FaultRunContext, recorder: inout Recorder) {
        guard let fault = storms.storms[i], let dropEventSockets else { return }
        // Logged first: a worker attributes a socket that ends after this mark, and began before it, to the storm.
        run.logFault(sinceLoadNanos: since, window: windows[i].name, kind: fault.kind, subject: "target", seq: 0)
        let ended = dropEventSockets(fault.code)
        recorder.count(Metric.fault(fault.kind), atNanos: now)
        recorder.count(Metric(named: SocketStormFault.socketsCounter), by: Int64(ended), atNanos: now)
    }

    /// Kills the child target for window `i`'s fault, and marks the kill in the run's history.
    private func kill(_ target: ControlledTarget, window i: Int, since: UInt64, now: UInt64, run: FaultRunContext) {
        guard let fault = targets.faults[i] else { return }
        let pid = target.pid ?? 0
        // The history's mark comes once the child is reaped, plus a moment for what it sent before dying (a push
        // in the gateway, an answer on the wire) to land, but never after the restart: the checker ends every
        // conversation live at the mark. Stamped when decided, a push the target sent just before its death
        // landed after the mark and revived its conversation (seen 1 run in 10).
        let restartMono = now + (fault.restartAtNanos > since ? fault.restartAtNanos - since : 0)
        let origin = run.seriesStartNanos
        queue.async { [historyFile] in
            target.kill(signal: fault.signal)
            let mark = min(run.nowNanos() + 50_000_000, max(restartMono, now))
            if let historyFile { Self.markKilled(t: mark &- origin, in: historyFile) }
        }
        run.logFault(sinceLoadNanos: since, window: windows[i].name, kind: TargetKillFault.killed,
                     subject: "pid-\(pid)", seq: 0)
    }

    /// Starts the child target again after window `i`'s kill.
    private func restart(_ target: ControlledTarget, window i: Int, since: UInt64, run: FaultRunContext,
                         count: @escaping @Sendable (Metric) -> Void) {
        let name = windows[i].name
        queue.async {
            do {
                try target.restart()
                run.logFault(sinceLoadNanos: run.sinceLoadNanos() ?? since, window: name,
                             kind: TargetKillFault.restarted, subject: "pid-\(target.pid ?? 0)", seq: 0)
                count(Metric.fault(TargetKillFault.restarted))
            } catch {
                count(Metric.fault(TargetKillFault.restartFailed))
                FileHandle.standardError.write(Data("callstorm: \(error)\n".utf8))
            }
        }
    }

    /// Appends the history's `target_killed` line (RunFormats' `HistoryText`) to `file`.
    private static func markKilled(t: UInt64, in file: URL) {
        var line: [UInt8] = []
        HistoryText.targetKilled(t: t, into: &line)
        line.append(10)
        if !FileManager.default.fileExists(atPath: file.path) {
            FileManager.default.createFile(atPath: file.path, contents: nil)
        }
        guard let handle = try? FileHandle(forWritingTo: file) else { return }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(line))
        try? handle.close()
    }
}
