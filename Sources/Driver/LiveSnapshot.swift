import Metrics
import Locking

/// What a worker has measured so far, as plain values another thread may read: run-total counters and
/// histograms (sparse, so a copy is small) and the conversations in progress. The metrics endpoint merges the
/// workers' snapshots; it never touches a worker's recorder.
public struct LiveSnapshot: Sendable {
    public var counters: [String: Int64] = [:]
    public var histograms: [String: SparseHistogram] = [:]
    public var activeConversations = 0
    /// Whether the worker has finished, so these are its final values.
    public var final = false

    public init() {}

    /// Adds another worker's snapshot: counters and histograms add, active conversations add.
    public mutating func merge(_ other: LiveSnapshot) {
        counters.merge(other.counters, uniquingKeysWith: +)
        histograms.merge(other.histograms) { $0.adding($1) }
        activeConversations += other.activeConversations
        final = final && other.final
    }
}

/// One worker's published snapshot. The worker replaces it on its 1 s tick (one lock, no waiting on readers
/// beyond a pointer swap); readers take a copy.
final class LiveSlot: Sendable {
    private let slot = Mutex(LiveSnapshot())

    /// Called on the worker's queue.
    func publish(_ recorder: Recorder, active: Int, final: Bool = false) {
        var snapshot = LiveSnapshot()
        snapshot.counters = recorder.counters
        snapshot.histograms = recorder.histograms.mapValues(\.sparse)
        snapshot.activeConversations = active
        snapshot.final = final
        slot.withLock { $0 = snapshot }
    }

    func read() -> LiveSnapshot { slot.withLock { $0 } }
}

extension LoadDriver {
    /// The workers' latest snapshots merged; safe from any thread and never blocks a worker for longer than a
    /// pointer copy. Values trail the workers by at most one tick (1 s) until the run ends, then are final.
    public var liveSnapshot: LiveSnapshot {
        var merged = LiveSnapshot()
        merged.final = true
        for worker in workersForSnapshot { merged.merge(worker.live.read()) }
        return merged
    }
}
