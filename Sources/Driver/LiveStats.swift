import Metrics
import struct Synchronization.Atomic

/// A worker's figures for the progress line and the metrics endpoint, read from other threads.
final class LiveStats: Sendable {
    let started = Atomic<Int>(0)
    let active = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let p99Micros = Atomic<Int>(0)
    /// Counters and histograms for the metrics endpoint, replaced on every tick.
    let slot = LiveSlot()
}
