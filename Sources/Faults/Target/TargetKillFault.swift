import Glibc
import Quantities

/// `target: { kill: true, restart_after: 5s, signal: KILL }`: callstorm kills the target it runs as a child
/// process when the window opens and starts it again `restart_after` later (at the window's end without one).
/// Every target window with `kill` kills: there is nothing to draw.
public struct TargetKillFault: Fault {
    public static let names = ["kill"]
    public static let family = FaultFamily.target
    public let probability = 1.0
    /// Since the load started.
    public let killAtNanos: UInt64
    public let restartAtNanos: UInt64
    /// SIGKILL (a crash: nothing is flushed) or SIGTERM (an orderly stop).
    public let signal: Int32

    /// The `faults.csv` kinds (and `faults.<kind>` counters) of what the controller did.
    public static let killed = "target.killed"
    public static let restarted = "target.restarted"
    public static let restartFailed = "target.restart_failed"
    /// A device's connection to the target broke after a kill and it is re-registering (`device.reconnect`), until
    /// `reregistered`: calls of its that fail meanwhile are the kill's (`FaultIndex`), not the server's.
    public static let reregistering = "target.reregistering"
    public static let reregistered = "target.reregistered"

    public init?(window: FaultWindow) {
        guard let target = window.target, target.kill else { return nil }
        killAtNanos = window.atNanos
        restartAtNanos = window.atNanos + (target.restartAfterNanos ?? window.forNanos)
        signal = target.signal == "TERM" ? SIGTERM : SIGKILL
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let target = window.target, target.kill else { return nil }
        let restart = target.restartAfterNanos.map { "restart after \(Quantity.format(nanos: $0))" }
            ?? "restart at the window's end"
        return "kill (SIG\(target.signal)), \(restart)"
    }
}

/// The kills and restarts of the target windows as the load's clock passes them: each window goes pending →
/// down (kill) → restarted, once. The CLI's fault controller performs the steps.
public struct TargetSchedule: Sendable {
    public enum Step: Sendable, Equatable {
        case kill(window: Int)
        case restart(window: Int)
    }

    private enum Phase: Sendable { case pending, down, restarted }

    public let faults: [Int: TargetKillFault]
    private var phases: [Int: Phase]

    public init(windows: [FaultWindow]) {
        var faults: [Int: TargetKillFault] = [:]
        for (i, w) in windows.enumerated() {
            if let fault = TargetKillFault(window: w) { faults[i] = fault }
        }
        self.faults = faults
        self.phases = faults.mapValues { _ in .pending }
    }

    public var isEmpty: Bool { faults.isEmpty }

    /// The steps due at `sinceLoad`, window by window in order, each returned once.
    public mutating func due(at sinceLoad: UInt64) -> [Step] {
        var steps: [Step] = []
        for i in phases.keys.sorted() {
            guard let fault = faults[i] else { continue }
            if phases[i] == .pending, sinceLoad >= fault.killAtNanos {
                phases[i] = .down
                steps.append(.kill(window: i))
            } else if phases[i] == .down, sinceLoad >= fault.restartAtNanos {
                phases[i] = .restarted
                steps.append(.restart(window: i))
            }
        }
        return steps
    }
}
