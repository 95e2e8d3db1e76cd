import Bytes
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// The system calls that move bytes (and the two that wait or accept), each wrapped once, as swift-nio's
/// `SystemCallHelpers` wraps them: an interrupted call (EINTR) is retried here and nowhere else, and a read or
/// write comes back as an `IOResult`, with EAGAIN/EWOULDBLOCK already told apart from failures. Every socket
/// and file descriptor callstorm reads or writes in Swift goes through this enum, so a loop never reads `errno`
/// after a read or write.
///
/// All members are `@inlinable` and allocate nothing: they sit on every event loop's hot path.
public enum SystemCall {
    /// The one place EINTR is handled: calls `call` again while it fails with EINTR (a signal arrived before any
    /// byte moved). Whatever else it returns, errno included, is the caller's.
    @inlinable
    public static func retryingInterrupts<N: BinaryInteger>(_ call: () -> N) -> N {
        while true {
            let n = call()
            if n >= 0 || errno != EINTR { return n }
        }
    }

    /// Maps a read or write's return value, with errno read at once after it.
    @inlinable
    static func result(_ n: Int) -> IOResult {
        if n > 0 { return .bytes(n) }
        if n == 0 { return .closed }
        let code = errno
        return code == EAGAIN || code == EWOULDBLOCK ? .wouldBlock : .error(code)
    }

    // MARK: - Streams and files

    /// `read(2)` of up to `count` bytes: a socket in the clear, a pipe, a file.
    @inlinable
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> IOResult {
        result(retryingInterrupts { Glibc.read(fd, buffer, count) })
    }

    /// `recv(2)` with `flags` (`MSG_PEEK` to look without taking).
    @inlinable
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int,
                               flags: Int32 = 0) -> IOResult {
        result(retryingInterrupts { Glibc.recv(fd, buffer, count, flags) })
    }

    /// `write(2)` of `bytes`: a file or a pipe (sockets use `send`, which never raises SIGPIPE).
    @inlinable
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .bytes(0) }
        return result(retryingInterrupts { Glibc.write(fd, base, bytes.count) })
    }

    /// `send(2)` of `bytes` with MSG_NOSIGNAL: a peer that went away is `.error(EPIPE)`, not a SIGPIPE.
    @inlinable
    public static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .bytes(0) }
        return result(retryingInterrupts { Glibc.send(fd, base, bytes.count, Int32(MSG_NOSIGNAL)) })
    }

    /// Writes all of `bytes` with `write` (blocking descriptors: files, a blocking test socket); nil once all
    /// went out, else the result that stopped it (`.wouldBlock` on a non-blocking socket that filled up).
    @inlinable
    public static func writeAll(_ bytes: UnsafeRawBufferPointer,
                                with write: (UnsafeRawBufferPointer) -> IOResult) -> IOResult? {
        var offset = 0
        while offset < bytes.count {
            let result = write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            guard case .bytes(let count) = result, count > 0 else { return result }
            offset &+= count
        }
        return nil
    }

    // MARK: - Datagrams

    /// `recvfrom(2)` of one IPv4 datagram into `buffer`, its sender in `source`. An empty datagram is `bytes(0)`,
    /// not `.closed`: a datagram socket has no end of stream.
    @inlinable
    public static func receiveDatagram(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int,
                                       from source: inout sockaddr_in) -> IOResult {
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let n = withUnsafeMutablePointer(to: &source) { address in
            address.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                retryingInterrupts { Glibc.recvfrom(fd, buffer, count, 0, raw, &length) }
            }
        }
        return n >= 0 ? .bytes(n) : result(n)
    }

    /// `sendto(2)` of one datagram to an IPv4 `address`, with MSG_NOSIGNAL.
    @inlinable
    public static func sendDatagram(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, to address: sockaddr_in)
        -> IOResult {
        var target = address
        let n = withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                retryingInterrupts {
                    Glibc.sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), raw,
                                 socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        return n >= 0 ? .bytes(n) : result(n)
    }

    // MARK: - Accepting and waiting

    /// `accept4(2)` of one connection, non-blocking and close-on-exec: its fd, or -1 with errno set (EAGAIN when
    /// the backlog is empty; ECONNABORTED and EPROTO name one connection that was lost, not the listener).
    @inlinable
    public static func accept(_ listenFD: Int32) -> Int32 {
        retryingInterrupts { clinux_accept(listenFD) }
    }

    /// `epoll_wait(2)` for at most `max` events, unpacked into `tags` and `events`; the count, 0 on timeout, or
    /// -1 with errno set. An interrupted wait starts again with the whole timeout (no loop here cares: each
    /// computes its timeout from its own clock on the next turn).
    @inlinable
    public static func wait(epoll fd: Int32, tags: UnsafeMutablePointer<UInt64>, events: UnsafeMutablePointer<UInt32>,
                            max: Int32, timeoutMillis: Int32) -> Int32 {
        retryingInterrupts { clinux_epoll_wait(fd, tags, events, max, timeoutMillis) }
    }

    /// `epoll_pwait2(2)` with a timeout in nanoseconds (negative: no limit), falling back to `epoll_wait` with the
    /// timeout rounded up to whole milliseconds where the kernel lacks it; the count, 0 on timeout, or -1 with
    /// errno set. An interrupted wait returns 0, as a timeout does, instead of starting the whole timeout again:
    /// the caller's next turn computes what is left, so a signal never makes a deadline late by a whole wait.
    @inlinable
    public static func wait(epoll fd: Int32, tags: UnsafeMutablePointer<UInt64>, events: UnsafeMutablePointer<UInt32>,
                            max: Int32, timeoutNanos: Int64) -> Int32 {
        let n = clinux_epoll_wait_ns(fd, tags, events, max, timeoutNanos)
        return n < 0 && errno == EINTR ? 0 : n
    }
}
