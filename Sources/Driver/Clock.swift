import CLinux

/// Monotonic time in nanoseconds. The driver reads time only through this, so tests can move it by hand.
public protocol Clock: Sendable {
    func nowNanos() -> UInt64
}

/// CLOCK_MONOTONIC, the same clock the push gateway stamps accepted pushes with.
public struct SystemClock: Clock {
    public init() {}
    public func nowNanos() -> UInt64 { clinux_monotonic_ns() }
}
