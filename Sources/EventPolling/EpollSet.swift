import CLinux
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// An epoll set, the eventfd that wakes its waiter, and the buffers one wait fills: the core that callstorm's
/// three event loops share (the HTTP server's loops, the fault proxy's loop, and `EventThread`, beside it here,
/// which runs the driver's HTTP transfers, WebSockets and SIP agents).
///
/// Only this core is shared. What each loop does between waits stays its own, because there they differ on
/// purpose and each is a measured hot path: the HTTP server drains a locked mailbox of responses and sweeps idle
/// connections; the proxy runs a timer heap on an injectable `Clock` and re-applies toxic lists; `EventThread`
/// hands each batch of ready fds to a serial DispatchQueue with `queue.sync` and carries its timers' earliest
/// deadline as the wait's timeout. One generic run loop would put a closure call or a protocol hop on every event
/// of all three.
///
/// Ownership rule: `add`/`modify`/`remove` and `wake()` are system calls, safe from any thread; `wait`, `tags`,
/// `events` and `drainWake()` belong to the one thread that waits; `close()` is called once, by the owner, after
/// the waiter has stopped.
public final class EpollSet: @unchecked Sendable {
    /// The epoll user data of the wake-up eventfd; loops tag their own fds with anything else.
    public static let wakeTag = UInt64.max - 1

    /// What failed when the set was made, for the owner's own error enum.
    public struct SetupFailure: Error {
        public var call: String
        public var errno: Int32
    }

    public let fd: Int32
    public let wakeFD: Int32
    /// Most events one `wait` returns.
    public let capacity: Int
    /// After `wait` returned n, the user data (tags) and the event flags of the n ready fds.
    public let tags: UnsafeMutablePointer<UInt64>
    public let events: UnsafeMutablePointer<UInt32>
    private var isClosed = false

    /// Creates the epoll set and the wake-up eventfd (registered under `wakeTag`); on failure nothing is left open.
    /// - Parameter edgeTriggeredWake: register the eventfd with EPOLLET: each `wake()` is reported once and the
    ///   waiter need not `drainWake()` (one `read` saved per wake-up). The counter then only grows, by one per
    ///   wake; it would take 2^64 wakes to fill.
    public init(capacity: Int, edgeTriggeredWake: Bool = false) throws(SetupFailure) {
        let fd = clinux_epoll_create()
        guard fd >= 0 else { throw SetupFailure(call: "epoll_create1", errno: errno) }
        let wakeFD = clinux_eventfd()
        guard wakeFD >= 0 else {
            let code = errno
            Glibc.close(fd)
            throw SetupFailure(call: "eventfd", errno: code)
        }
        let interest = CLINUX_EPOLLIN | (edgeTriggeredWake ? CLINUX_EPOLLET : 0)
        guard clinux_epoll_ctl(fd, 1, wakeFD, interest, Self.wakeTag) == 0 else {
            let code = errno
            Glibc.close(wakeFD)
            Glibc.close(fd)
            throw SetupFailure(call: "epoll_ctl", errno: code)
        }
        self.fd = fd
        self.wakeFD = wakeFD
        self.capacity = max(1, capacity)
        tags = .allocate(capacity: self.capacity)
        events = .allocate(capacity: self.capacity)
    }

    deinit {
        tags.deallocate()
        events.deallocate()
    }

    // MARK: - Registration (any thread)

    /// Adds `fd` with interest `events` (CLINUX_EPOLL* bits), reported under `tag`; false with errno set on failure.
    @discardableResult
    public func add(_ fd: Int32, events: UInt32, tag: UInt64) -> Bool {
        clinux_epoll_ctl(self.fd, 1, fd, events, tag) == 0
    }

    @discardableResult
    public func modify(_ fd: Int32, events: UInt32, tag: UInt64) -> Bool {
        clinux_epoll_ctl(self.fd, 3, fd, events, tag) == 0
    }

    public func remove(_ fd: Int32) {
        _ = clinux_epoll_ctl(self.fd, 2, fd, 0, 0)
    }

    /// Makes the waiter's current or next `wait` return (the wake tag is among its events).
    public func wake() {
        _ = clinux_eventfd_signal(wakeFD)
    }

    // MARK: - Waiting (the waiting thread)

    /// Waits up to `timeoutMillis` (-1: no limit) for at most `limit` (default: `capacity`) ready fds; returns
    /// how many, their tags and flags in `tags` and `events`; 0 on timeout, -1 on error (a signal is not one:
    /// `SystemCall.wait` waits again).
    public func wait(timeoutMillis: Int32, limit: Int? = nil) -> Int {
        Int(SystemCall.wait(epoll: fd, tags: tags, events: events, max: Int32(min(limit ?? capacity, capacity)),
                            timeoutMillis: timeoutMillis))
    }

    /// Waits up to `timeoutNanos` (negative: no limit), to the nanosecond where the kernel has epoll_pwait2 (else
    /// rounded up to whole milliseconds); as `wait(timeoutMillis:)` otherwise, but a signal ends the wait with 0.
    public func wait(timeoutNanos: Int64, limit: Int? = nil) -> Int {
        Int(SystemCall.wait(epoll: fd, tags: tags, events: events, max: Int32(min(limit ?? capacity, capacity)),
                            timeoutNanos: timeoutNanos))
    }

    /// Clears the wake-up eventfd's readiness once its wake was seen (not needed with `edgeTriggeredWake`).
    public func drainWake() {
        _ = clinux_eventfd_drain(wakeFD)
    }

    /// Closes the eventfd and the epoll set (which drops every registration); later calls do nothing.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(wakeFD)
        Glibc.close(fd)
    }
}
