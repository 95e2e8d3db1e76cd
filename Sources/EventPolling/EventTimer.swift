import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// A one-shot timer on an `EventThread`: a timerfd armed at absolute CLOCK_MONOTONIC instants, so it fires on
/// time (no timer slack, no hop through libdispatch's manager thread). Use on the thread's queue.
public final class EventTimer: @unchecked Sendable {
    private let events: EventThread
    private let fd: Int32
    private var id: UInt32 = 0
    private var fired: () -> Void

    /// Call on `events.queue` (or on a thread nothing else knows yet); `fired` runs on the queue.
    public init(on events: EventThread, fired: @escaping () -> Void) {
        self.events = events
        self.fired = fired
        fd = clinux_timerfd_create()
        id = events.register(first: true, ready: { [unowned self] fd, _ in
            _ = clinux_eventfd_drain(fd)  // reads the expiry count, which clears readiness
            self.fired()
        })
        events.add(fd, events: CLINUX_EPOLLIN, handler: id)
    }

    /// Fires once at `deadlineNanos` on CLOCK_MONOTONIC (`clinux_monotonic_ns`), at once if that has passed.
    /// Does nothing once closed (the fd number may belong to something else by then).
    public func arm(atMonotonicNanos deadlineNanos: UInt64) {
        guard id != 0 else { return }
        _ = clinux_timerfd_arm(fd, max(1, deadlineNanos))
    }

    public func disarm() {
        guard id != 0 else { return }
        _ = clinux_timerfd_arm(fd, 0)
    }

    /// Call on the queue; the timer never fires after this.
    public func close() {
        guard id != 0 else { return }
        events.unregister(id)
        events.remove(fd)
        Glibc.close(fd)
        id = 0
        fired = {}
    }
}
