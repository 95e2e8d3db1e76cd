@testable import Driver
import struct Synchronization.Atomic

/// A clock moved only by hand (as swift-nio's EmbeddedEventLoop does), so flows, races and faults run in
/// virtual time: no sleeps, and every instant is known to the test.
final class ManualClock: Clock {
    private let nanos: Atomic<UInt64>

    init(startNanos: UInt64 = 1_000_000_000) {
        nanos = Atomic(startNanos)
    }

    func nowNanos() -> UInt64 { nanos.load(ordering: .relaxed) }

    func advance(by delta: UInt64) {
        nanos.add(delta, ordering: .relaxed)
    }

    /// Moves to `instant`; never backwards.
    func advance(to instant: UInt64) {
        if instant > nowNanos() { nanos.store(instant, ordering: .relaxed) }
    }
}
