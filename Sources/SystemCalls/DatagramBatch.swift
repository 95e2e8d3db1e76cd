import Bytes
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Room for up to `capacity` datagrams read by one `recvmmsg(2)` (`SystemCall.receiveDatagrams`): one buffer of
/// `capacity` slots of `stride` bytes, each slot's length and sender. A loop that reads a socket until EAGAIN with
/// `recvfrom` pays one system call per datagram plus one that finds nothing; a batch pays one per `capacity`
/// datagrams, and a short batch (fewer than asked) already says the socket is drained, so no empty call follows.
///
/// Owned by one loop (not thread-safe); the bytes of slot `i` are valid until the next receive.
public final class DatagramBatch {
    public let capacity: Int
    public let stride: Int
    /// Datagrams in the batch after the last receive.
    public private(set) var count = 0
    @usableFromInline let storage: UnsafeMutableRawPointer
    @usableFromInline let lengths: UnsafeMutablePointer<UInt32>
    @usableFromInline let sources: UnsafeMutablePointer<sockaddr_in>
    /// Each datagram's kernel receive time (CLOCK_REALTIME ns, 0: none came), when made `stamped`.
    @usableFromInline let stamps: UnsafeMutablePointer<UInt64>?

    /// - Parameters:
    ///   - capacity: datagrams per call, at most `CLINUX_MMSG_MAX` (64).
    ///   - stride: bytes per datagram; a longer one is truncated to it (the kernel's MSG_TRUNC rule).
    ///   - stamped: keep each datagram's kernel receive time (`receivedAt`); the socket must have asked for them
    ///     (`clinux_set_receive_stamps`).
    public init(capacity: Int = Int(CLINUX_MMSG_MAX), stride: Int = 2_048, stamped: Bool = false) {
        self.capacity = min(max(1, capacity), Int(CLINUX_MMSG_MAX))
        self.stride = stride
        storage = .allocate(byteCount: self.capacity * stride, alignment: 16)
        lengths = .allocate(capacity: self.capacity)
        sources = .allocate(capacity: self.capacity)
        sources.initialize(repeating: sockaddr_in(), count: self.capacity)
        stamps = stamped ? .allocate(capacity: self.capacity) : nil
        stamps?.initialize(repeating: 0, count: self.capacity)
    }

    deinit {
        storage.deallocate()
        lengths.deallocate()
        sources.deallocate()
        stamps?.deallocate()
    }

    /// The bytes of datagram `i` (`0..<count`).
    @inlinable
    public subscript(_ i: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage + i * stride, count: min(Int(lengths[i]), stride))
    }

    /// Where datagram `i` came from.
    @inlinable
    public func source(_ i: Int) -> sockaddr_in { sources[i] }

    /// When the kernel received datagram `i`: CLOCK_REALTIME ns, 0 when unknown (a batch not `stamped`, or no
    /// stamp came with it).
    @inlinable
    public func receivedAt(_ i: Int) -> UInt64 { stamps?[i] ?? 0 }

    /// Reads what `fd` holds, up to `capacity`: `.bytes(n)` datagrams (n ≥ 1), `.wouldBlock`, or `.error`.
    @usableFromInline
    func fill(from fd: Int32) -> IOResult {
        let n = SystemCall.retryingInterrupts {
            clinux_recvmmsg_stamped(fd, storage, UInt32(stride), UInt32(capacity), lengths, sources, stamps)
        }
        count = max(0, Int(n))
        if n > 0 { return .bytes(Int(n)) }
        let code = errno
        return code == EAGAIN || code == EWOULDBLOCK ? .wouldBlock : .error(code)
    }
}

extension SystemCall {
    /// `recvmmsg(2)` of up to `batch.capacity` datagrams at once into `batch`: `.bytes(n)` is n datagrams (not
    /// bytes), each `batch[i]` from `batch.source(i)`; fewer than the capacity means the socket is drained.
    @inlinable
    public static func receiveDatagrams(_ fd: Int32, into batch: DatagramBatch) -> IOResult {
        batch.fill(from: fd)
    }

    /// `sendmmsg(2)` of up to `CLINUX_MMSG_MAX` datagrams on one socket in one call, the i-th `datas[i]` (with
    /// `lengths[i]` bytes) to `targets[i]`: how many the kernel took (the first n; resend the rest, or count them
    /// as errors), or `.wouldBlock` / `.error` for the first. Callers pass pointers they keep alive for the call.
    @inlinable
    public static func sendDatagrams(_ fd: Int32, datas: UnsafePointer<UnsafeRawPointer?>,
                                     lengths: UnsafePointer<UInt32>, targets: UnsafePointer<sockaddr_in>,
                                     count: Int) -> IOResult {
        guard count > 0 else { return .bytes(0) }
        let n = retryingInterrupts { clinux_sendmmsg(fd, datas, lengths, targets, UInt32(count)) }
        if n >= 0 { return .bytes(Int(n)) }
        let code = errno
        return code == EAGAIN || code == EWOULDBLOCK ? .wouldBlock : .error(code)
    }
}
