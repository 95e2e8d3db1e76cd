import Bytes
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// Datagrams queued for one socket and sent with one `sendmmsg(2)` (`SystemCall.sendDatagrams`): a loop that
/// sends what is due on a tick appends each datagram here and calls `flush()` at the end of the tick. Appending for
/// another socket, or past `capacity`, flushes first, so order per socket is kept and each socket's consecutive
/// datagrams (a stream that owes several packets after a late tick, a SIP socket's retransmissions and answers)
/// cost one system call.
///
/// The bytes are copied in (the caller's buffer may be reused at once). Owned by one loop (not thread-safe).
public final class DatagramSendBatch {
    public let capacity: Int
    public let stride: Int
    /// Datagrams the kernel refused (any error, EAGAIN too: a datagram is not resent later), and those the caller
    /// had no address for (`countUnaddressable`).
    public private(set) var failures = 0
    private var fd: Int32 = -1
    private var count = 0
    private let storage: UnsafeMutableRawPointer
    private let datas: UnsafeMutablePointer<UnsafeRawPointer?>
    private let lengths: UnsafeMutablePointer<UInt32>
    private let targets: UnsafeMutablePointer<sockaddr_in>

    /// - Parameters:
    ///   - capacity: datagrams per call, at most `CLINUX_MMSG_MAX` (64).
    ///   - stride: the largest datagram; a longer one is sent alone with `sendto`.
    public init(capacity: Int = Int(CLINUX_MMSG_MAX), stride: Int = 2_048) {
        self.capacity = min(max(1, capacity), Int(CLINUX_MMSG_MAX))
        self.stride = stride
        storage = .allocate(byteCount: self.capacity * stride, alignment: 16)
        datas = .allocate(capacity: self.capacity)
        lengths = .allocate(capacity: self.capacity)
        targets = .allocate(capacity: self.capacity)
        targets.initialize(repeating: sockaddr_in(), count: self.capacity)
        for i in 0..<self.capacity { datas[i] = UnsafeRawPointer(storage + i * stride) }
    }

    deinit {
        storage.deallocate()
        datas.deallocate()
        lengths.deallocate()
        targets.deallocate()
    }

    /// Datagrams waiting for `flush()`.
    public var pending: Int { count }

    /// Queues `bytes` for `fd` to `target` (a copy).
    public func append(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, to target: sockaddr_in) {
        guard bytes.count <= stride else {
            flush()
            if SystemCall.sendDatagram(fd, bytes, to: target) != .bytes(bytes.count) { failures += 1 }
            return
        }
        if count > 0, fd != self.fd || count == capacity { flush() }
        self.fd = fd
        if let base = bytes.baseAddress, bytes.count > 0 {
            (storage + count * stride).copyMemory(from: base, byteCount: bytes.count)
        }
        lengths[count] = UInt32(bytes.count)
        targets[count] = target
        count += 1
    }

    /// Counts a datagram the caller could not send at all (its destination is no IPv4 address), so one figure
    /// holds every datagram that did not go.
    public func countUnaddressable() { failures += 1 }

    /// Sends everything queued; a datagram the kernel did not take counts in `failures`.
    public func flush() {
        var sent = 0
        while sent < count {
            let result = SystemCall.sendDatagrams(fd, datas: datas + sent, lengths: lengths + sent,
                                                  targets: targets + sent, count: count - sent)
            guard case .bytes(let n) = result, n > 0 else {
                // The first one failed: count it and go on with the rest (each datagram stands alone).
                failures += 1
                sent += 1
                continue
            }
            sent += n
        }
        count = 0
    }
}
