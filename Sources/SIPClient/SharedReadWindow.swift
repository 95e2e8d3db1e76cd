import CLinux
import EventPolling

/// `device.coalesce`: batches on purpose on the shared socket (docs/SIP.md, "Batches on purpose"). A read that
/// carried few datagrams stops the socket being watched for a short window, on the event thread's own timer, so
/// what comes meanwhile waits in the kernel and the next read takes it all at once: one wake-up, one `recvmmsg` and
/// one `sendmmsg` for many datagrams, and the path warm across them. The loop's other timers (the Driver's wheel,
/// the pool's) keep firing on time during the window: nothing sleeps, the socket is only not in the wait's interest.
/// A read that came back full reads again at once; one that found nothing watches the socket again.
///
/// Measured by the lead with a crude sleep (which held the timers too): ~16 datagrams a read instead of ~2 and
/// ~22 % less CPU a call at 1,600 calls/s with 300 µs.
struct SharedReadWindow {
    /// What follows a read of the shared socket.
    enum Step: Equatable {
        /// It came back full: more waits in the kernel.
        case readAgain
        /// Watch the socket again (it is drained, or its reads are big enough without a wait, or waits are off).
        case watch
        /// Stop watching and read again at this instant (CLOCK_MONOTONIC ns).
        case wait(until: UInt64)
    }

    /// The window's length (0: off, every read as before).
    var nanos: UInt64 = Self.defaultNanos
    /// Whether the socket is in the event thread's interest (false during a window).
    var watching = true
    /// Its interest is one-shot (`interest` with a window on): the kernel takes the socket out of the interest as it
    /// reports it ready, so the window that follows a short read needs no `epoll_ctl` of its own, only the watch
    /// after it (one call a window instead of two).
    var oneShot = false
    /// Ends the window: the read that follows it. Made with the socket's first window.
    var timer: EventTimer?
    /// The pool's clock at the last read: datagrams read next arrived after it (`ReceiveStamp`'s floor).
    var readAt: UInt64 = 0

    /// 300 µs: the lead's experiment's best (1 ms made reads only a third bigger and cost more CPU).
    static let defaultNanos: UInt64 = 300_000

    /// The socket's epoll interest: readable, one-shot while windows are on (`oneShot`).
    var interest: UInt32 { nanos > 0 ? CLINUX_EPOLLIN | Self.epollOneShot : CLINUX_EPOLLIN }

    /// EPOLLONESHOT (linux/eventpoll.h).
    static let epollOneShot: UInt32 = 1 << 30

    /// The step after a read of `count` datagrams (0: it found none, or failed) into a batch of `capacity` at `now`.
    /// A read of fewer than half the capacity waits: below that a wake-up carries too little to run warm.
    func step(afterReading count: Int, capacity: Int, now: UInt64) -> Step {
        if count >= capacity { return .readAgain }
        guard nanos > 0, count > 0, count < Self.threshold(capacity) else { return .watch }
        return .wait(until: now + nanos)
    }

    /// Reads that carry fewer datagrams than this are followed by a window.
    static func threshold(_ capacity: Int) -> Int { max(1, capacity / 2) }
}
