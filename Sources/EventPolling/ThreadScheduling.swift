import CLinux
import Foundation

/// How a thread competes for a core with the process's other threads: the Linux scheduling policy.
public enum ThreadPriority: String, Sendable {
    /// The kernel's default (SCHED_OTHER): the driver's workers.
    case normal
    /// SCHED_BATCH: the same share of the cores as `normal` at the same nice, but the thread never preempts another
    /// as it wakes; it waits for the running thread's slice to end (or for it to block) instead.
    case batch
    /// SCHED_IDLE: the thread runs only in what the other threads leave (a weight of 3 against nice 0's 1024), and a
    /// thread of any other policy waking on its core takes the core at once. Starves on a busy machine: a capacity
    /// run beside other load (2026-12-07, load ~20) read its checkpoints 9 times in 127 s instead of ~60 and
    /// wrote a checkpoint up to 15 s late, so the knee's verdict came too late to end the ramp. Unprivileged, a
    /// thread cannot leave SCHED_IDLE again.
    case idle

    /// The Linux policy number (`sched_setscheduler`).
    public var policy: Int32 {
        switch self {
        case .normal: 0
        case .batch: 3
        case .idle: 5
        }
    }
}

/// A thread's policy and niceness, applied to the calling thread as it starts: the one place callstorm sets how its
/// threads share the cores (the background thread, the embedded target's loops and push thread, the gateway's).
///
/// Why: in the capacity run the two workers, the embedded target's threads and the gateway share two cores, and a
/// worker's timer that comes due while another thread holds the core waits for it; callstorm's own lag p99 passed
/// 1 ms from ~2,000 calls/s. A load tool's event loops should get the core first; what it measures can wait, and
/// its figures then say so. Both knobs only lower a thread, which needs no privilege (and cannot be undone
/// without CAP_SYS_NICE: out of SCHED_IDLE, or back to a lower nice).
///
/// Text form (the environment variables): `normal`, `batch` or `idle`, optionally `:N` for nice N (0...19), e.g.
/// `batch:5`.
public struct ThreadScheduling: Sendable, Equatable, CustomStringConvertible {
    public var priority: ThreadPriority
    /// The thread's nice value (0...19; higher: a smaller share when the cores are contended, weight 1024 at 0,
    /// 335 at 5, 110 at 10).
    public var nice: Int32

    public static let normal = ThreadScheduling(.normal)
    public static let batch = ThreadScheduling(.batch)

    public init(_ priority: ThreadPriority, nice: Int32 = 0) {
        self.priority = priority
        self.nice = max(0, min(19, nice))
    }

    /// `normal`, `batch`, `idle`, each optionally `:N` (nice 0...19); nil for anything else.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let priority = ThreadPriority(rawValue: String(parts[0])) else { return nil }
        var nice: Int32 = 0
        if parts.count == 2 {
            guard let value = Int32(parts[1]), (0...19).contains(value) else { return nil }
            nice = value
        }
        self.init(priority, nice: nice)
    }

    /// The variable `name`'s value when it parses, else `fallback` (an unset or mistyped variable changes nothing).
    public static func fromEnvironment(_ name: String, or fallback: ThreadScheduling) -> ThreadScheduling {
        ProcessInfo.processInfo.environment[name].flatMap(ThreadScheduling.init(parsing:)) ?? fallback
    }

    /// The Linux policy number (`ThreadPriority.policy`).
    public var policy: Int32 { priority.policy }

    public var description: String { nice == 0 ? priority.rawValue : "\(priority.rawValue):\(nice)" }

    /// Applies the policy and the nice to the calling thread (Linux: per thread, by its TID); returns whether both
    /// took. The default (`normal`, nice 0) changes nothing, so a thread keeps what it inherited.
    @discardableResult
    public func applyToCurrentThread() -> Bool {
        var ok = true
        if priority != .normal { ok = clinux_set_thread_policy(priority.policy) == 0 }
        if nice != 0 { ok = clinux_set_thread_nice(nice) == 0 && ok }
        return ok
    }

    /// The calling thread's policy (SCHED_OTHER 0, SCHED_BATCH 3, SCHED_IDLE 5), for tests and measurement.
    public static func currentPolicy() -> Int32 { clinux_thread_policy() }

    /// The calling thread's nice value, for tests and measurement.
    public static func currentNice() -> Int32 { clinux_thread_nice() }
}
