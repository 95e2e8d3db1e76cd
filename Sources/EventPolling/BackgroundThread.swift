import CLinux
import Dispatch
import Foundation

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
    public static let priority = ThreadScheduling.fromEnvironment("CALLSTORM_BACKGROUND_PRIORITY", or: .batch)

    public static let shared = EventThread(queue: DispatchQueue(label: "callstorm.background"),
                                           name: "callstorm.background", ownsItsWork: true, scheduling: priority)

    /// The calling thread's scheduling policy (`ThreadPriority.policy`), for tests and measurement.
    public static func currentPolicy() -> Int32 { ThreadScheduling.currentPolicy() }
}
