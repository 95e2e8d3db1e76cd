import CLinux
import Locking
import struct Synchronization.Atomic

/// Monotonic time in nanoseconds. The driver, the fault proxy and their toxics read time only through this, so
/// tests can move it by hand (`ManualClock`) instead of sleeping.
public protocol Clock: Sendable {
    func nowNanos() -> UInt64

    /// Asks the clock to call `wake` whenever its time is moved by hand, so a loop that sleeps until a deadline
    /// on this clock re-reads it at once instead of a test poking the loop. Returns a token for `stopWaking`, or
    /// nil for a clock that only flows (the real one never jumps, so it keeps nothing).
    func wakeOnMove(_ wake: @escaping @Sendable () -> Void) -> Int?

    /// Forgets the waker of `token`; once this returns, it is not called again (nor running).
    func stopWaking(_ token: Int)
}

extension Clock {
    public func wakeOnMove(_ wake: @escaping @Sendable () -> Void) -> Int? { nil }
    public func stopWaking(_ token: Int) {}
}

/// CLOCK_MONOTONIC, the clock the push gateway stamps accepted pushes with and every run measures from.
public struct MonotonicClock: Clock {
    public init() {}
    public func nowNanos() -> UInt64 { clinux_monotonic_ns() }
}

/// A clock that moves only when a test moves it, so timers, windows and deadlines are tested in virtual time.
///
/// Safe to read from any thread while a test advances it (the driver's queues and the proxy's loop read it).
/// Every move calls the wakers loops registered (`wakeOnMove`), so a loop waiting on a deadline sees the new time
/// without the test nudging it.
public final class ManualClock: Clock {
    private let nanos: Atomic<UInt64>
    /// Held while wakers run, so `stopWaking` returns only when none of them is running any more (a loop closes
    /// its wake-up descriptor right after).
    private let wakers = Mutex<(next: Int, byToken: [Int: @Sendable () -> Void])>((0, [:]))

    /// Starts at `startNanos`: one second by default, so "zero" never looks like an unset timestamp.
    public init(startNanos: UInt64 = 1_000_000_000) {
        nanos = Atomic(startNanos)
    }

    public func nowNanos() -> UInt64 { nanos.load(ordering: .acquiring) }

    /// Moves time forward by `delta` nanoseconds.
    public func advance(by delta: UInt64) {
        nanos.wrappingAdd(delta, ordering: .acquiringAndReleasing)
        wakeAll()
    }

    /// Moves to `instant`, never backwards (a wheel's next deadline may already be behind a test's clock).
    public func advance(to instant: UInt64) {
        if instant > nowNanos() { nanos.store(instant, ordering: .releasing) }
        wakeAll()
    }

    /// Sets time to `value` nanoseconds; a test that moves time backwards is testing a broken clock on purpose.
    public func set(_ value: UInt64) {
        nanos.store(value, ordering: .releasing)
        wakeAll()
    }

    public func wakeOnMove(_ wake: @escaping @Sendable () -> Void) -> Int? {
        wakers.withLock { state in
            state.next += 1
            state.byToken[state.next] = wake
            return state.next
        }
    }

    public func stopWaking(_ token: Int) {
        _ = wakers.withLock { $0.byToken.removeValue(forKey: token) }
    }

    private func wakeAll() {
        wakers.withLock { state in
            for token in state.byToken.keys.sorted() { state.byToken[token]?() }
        }
    }
}
