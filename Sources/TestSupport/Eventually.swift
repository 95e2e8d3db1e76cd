import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Polls `condition` until it holds or `seconds` pass, and returns whether it held: for state that settles on
/// another thread (a server's connection count, a proxy's counter). A generous limit costs nothing when the
/// condition holds early, so the default is long enough for a loaded CI machine.
public func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = clinux_monotonic_ns() + UInt64(seconds * 1e9)
    while clinux_monotonic_ns() < deadline {
        if condition() { return true }
        usleep(2_000)
    }
    return condition()
}
