import CLinux

/// Monotonic time in nanoseconds, as the proxy and its toxics read it. Tests of toxic pipelines move it by hand.
public protocol ProxyClock: Sendable {
    func nowNanos() -> UInt64
}

/// CLOCK_MONOTONIC, the clock the rest of callstorm stamps with.
public struct SystemProxyClock: ProxyClock {
    public init() {}
    public func nowNanos() -> UInt64 { clinux_monotonic_ns() }
}
