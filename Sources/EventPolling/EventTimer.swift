/// A one-shot timer on an `EventThread`: a deadline at an absolute CLOCK_MONOTONIC instant in the thread's own
/// table, which the thread's wait carries as its timeout (see `EventThread`), so arming, disarming and firing cost
/// no system call and no hop through libdispatch's manager thread. Use on the thread's queue.
///
/// It never fires before its deadline (the thread reads the clock after its wait and runs only what is due); one
/// armed at a deadline already passed fires on the thread's next turn.
public final class EventTimer: @unchecked Sendable {
    private let events: EventThread
    /// Its slot in the thread's table; nil once closed.
    private var slot: Int?

    /// Call on `events.queue` (or on a thread nothing else knows yet); `fired` runs on the queue.
    public init(on events: EventThread, fired: @escaping () -> Void) {
        self.events = events
        slot = events.addTimer(fired)
    }

    /// Fires once at `deadlineNanos` on CLOCK_MONOTONIC (`clinux_monotonic_ns`), on the next turn if that has
    /// passed; replaces an earlier arming. Does nothing once closed.
    public func arm(atMonotonicNanos deadlineNanos: UInt64) {
        guard let slot else { return }
        events.armTimer(slot, at: deadlineNanos)
    }

    public func disarm() {
        guard let slot else { return }
        events.disarmTimer(slot)
    }

    /// Call on the queue; the timer never fires after this, and its closure is released.
    public func close() {
        guard let slot else { return }
        events.removeTimer(slot)
        self.slot = nil
    }
}
