import Metrics
import Locking
import struct Synchronization.Atomic

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
///
/// The worker hands over its histograms as windows (`HdrWindow`: one bulk copy of the slots in use each) and the
/// reader turns them into sparse ones: converting every histogram on the worker's queue took ~1 ms per tick there,
/// a block in front of the worker's timers; handing the dense histograms over as they are (copy-on-write) made the
/// worker's next record into each copy its whole counts array instead (~1.5 M instructions per SIP call at 20/s).
final class LiveSlot: Sendable {
    private struct Published: Sendable {
        /// Counter names and totals in the recorder's order (`Recorder.counterTotals`), keyed by the reader.
        var counterNames: [String] = []
        var counterTotals: [Int64] = []
        var histograms: [String: HdrWindow] = [:]
        var activeConversations = 0
        var final = false
    }

    private let slot = Mutex(Published())

    /// Whether the tick hands over histogram windows. Off when nothing reads them while the run goes (a quiet run
    /// with no metrics endpoint and no OTLP export: `LoadDriver.liveHistograms`): copying every run-total
    /// histogram's window each second was ~2.5 M instructions a second of the SIP bench's client, for no reader.
    let carriesHistograms = Atomic<Bool>(true)

    /// Called on the worker's queue.
    func publish(_ recorder: Recorder, active: Int, final: Bool = false) {
        let histograms = carriesHistograms.load(ordering: .relaxed) ? recorder.histogramWindows : [:]
        let (names, totals) = recorder.counterTotals
        let published = Published(counterNames: names, counterTotals: totals, histograms: histograms,
                                  activeConversations: active, final: final)
        slot.withLock { $0 = published }
    }

    func read() -> LiveSnapshot {
        let published = slot.withLock { $0 }
        var snapshot = LiveSnapshot()
        snapshot.counters.reserveCapacity(published.counterNames.count)
        for (name, total) in zip(published.counterNames, published.counterTotals) { snapshot.counters[name] = total }
        snapshot.histograms = published.histograms.mapValues(\.sparse)
        snapshot.activeConversations = published.activeConversations
        snapshot.final = published.final
        return snapshot
    }
}

extension LoadDriver {
    /// Whether `liveSnapshot` carries histograms (on by default). The CLI turns it off before `run()` when nothing
    /// reads them live (`--quiet` with no metrics endpoint and no OTLP export); counters are published either way,
    /// and the run's results are the same.
    public func liveHistograms(_ on: Bool) {
        for worker in workersForSnapshot { worker.live.slot.carriesHistograms.store(on, ordering: .relaxed) }
    }

    /// The workers' latest snapshots merged; safe from any thread and never blocks a worker for longer than a
    /// pointer copy. Values trail the workers by at most one tick (1 s) until the run ends, then are final.
    public var liveSnapshot: LiveSnapshot {
        var merged = LiveSnapshot()
        merged.final = true
        for worker in workersForSnapshot { merged.merge(worker.live.slot.read()) }
        return merged
    }
}
