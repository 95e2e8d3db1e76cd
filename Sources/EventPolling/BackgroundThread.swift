import CLinux
import Dispatch
import Foundation

/// How an `EventThread` competes for a core with the process's other threads.
public enum ThreadPriority: String, Sendable {
    /// The kernel's default (SCHED_OTHER, nice 0): the driver's workers, the target's loops.
    case normal
    /// SCHED_BATCH: the same share of the cores as `normal`, but the thread never preempts another as it wakes; it
    /// waits for the running thread's slice to end (or for it to block) instead.
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

/// The process's one thread for the run's periodic bookkeeping: the recorder checkpoints' writing
/// (`RecorderCheckpointer`) and the capacity, saturation and threshold watches.
///
/// Why a thread of its own: that bookkeeping ran on libdispatch's pool threads at the workers' priority, all of it
/// every two seconds (~30 ms of CPU in one burst on the capacity bench, perf per thread, 2026-12-07), each pool
/// thread taking the core from a worker as it woke; callstorm's own lag p99 rose above 1 ms every other second.
/// Here it runs one piece after another on one thread, at `CALLSTORM_BACKGROUND_PRIORITY` (`normal`, `batch` or
/// `idle`; default `batch`: it never preempts a worker as it wakes, and cannot starve as `idle` did under load).
///
/// Ownership rule: an `EventThread` that owns its work; hand it work with `post` (or `sync`, never from itself).
public enum BackgroundThread {
    /// The priority the shared thread runs at (read once, as it starts).
    public static let priority = ThreadPriority(
        rawValue: ProcessInfo.processInfo.environment["CALLSTORM_BACKGROUND_PRIORITY"] ?? "") ?? .batch

    public static let shared = EventThread(queue: DispatchQueue(label: "callstorm.background"),
                                           name: "callstorm.background", ownsItsWork: true, priority: priority)

    /// The calling thread's scheduling policy (`ThreadPriority.policy`), for tests and measurement.
    public static func currentPolicy() -> Int32 { clinux_thread_policy() }
}
