import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Polls `condition` until it holds or `seconds` pass, and returns whether it held: for state that settles on
/// another thread (a server's connection count, a proxy's counter). A generous limit costs nothing when the
/// condition holds early, so the default is long enough for a loaded CI machine. `every`: seconds between polls,
/// longer for a condition that is costly to evaluate (decoding a file).
public func eventually(_ seconds: Double = 5, every interval: Double = 0.002, _ condition: () -> Bool) -> Bool {
    let deadline = clinux_monotonic_ns() + UInt64(seconds * 1e9)
    while clinux_monotonic_ns() < deadline {
        if condition() { return true }
        // sleep-ok: the pause between polls of state another thread settles; the wait ends when it holds
        usleep(useconds_t(interval * 1e6))
    }
    return condition()
}
