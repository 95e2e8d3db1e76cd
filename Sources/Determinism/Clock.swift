import CLinux
import Synchronization

/// Monotonic time in nanoseconds. The driver, the fault proxy and their toxics read time only through this, so
/// tests can move it by hand (`ManualClock`) instead of sleeping.
public protocol Clock: Sendable {
    func nowNanos() -> UInt64
}

/// CLOCK_MONOTONIC, the clock the push gateway stamps accepted pushes with and every run measures from.
public struct MonotonicClock: Clock {
    public init() {}
    public func nowNanos() -> UInt64 { clinux_monotonic_ns() }
}

/// A clock that moves only when a test moves it, so timers, windows and deadlines are tested in virtual time.
///
/// Safe to read from any thread while a test advances it (the driver's queues and the proxy's loop read it).
public final class ManualClock: Clock {
    private let nanos: Atomic<UInt64>

    /// Starts at `startNanos`: one second by default, so "zero" never looks like an unset timestamp.
    public init(startNanos: UInt64 = 1_000_000_000) {
        nanos = Atomic(startNanos)
    }

    public func nowNanos() -> UInt64 { nanos.load(ordering: .acquiring) }

    /// Moves time forward by `delta` nanoseconds.
    public func advance(by delta: UInt64) {
        nanos.wrappingAdd(delta, ordering: .acquiringAndReleasing)
    }

    /// Moves to `instant`, never backwards (a wheel's next deadline may already be behind a test's clock).
    public func advance(to instant: UInt64) {
        if instant > nowNanos() { nanos.store(instant, ordering: .releasing) }
    }

    /// Sets time to `value` nanoseconds; a test that moves time backwards is testing a broken clock on purpose.
    public func set(_ value: UInt64) {
        nanos.store(value, ordering: .releasing)
    }
}
