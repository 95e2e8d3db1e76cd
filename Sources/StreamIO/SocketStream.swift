import Bytes
import CSSL
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// A connection's socket, in the clear or under TLS, with one read/write interface for both protocols.
///
/// Thread rule: owned by one connection on its event-loop thread. Shared by the HTTP server's connections (which
/// add what a server knows of its peer, `ByteStream`) and the WebSocket client's sockets, so neither module imports
/// the other. Results are `IOResult`s: in the clear straight from `SystemCall` (interrupted calls retried there);
/// under TLS, OpenSSL's "wants the other direction" is `.wouldBlock` too, since the loop keeps read interest on
/// and write interest whenever bytes are waiting.
open class SocketStream {
    public final let fd: Int32
    /// The TLS session, nil in the clear. Freed by `close()`.
    public final private(set) var tls: OpaquePointer?

    public init(fd: Int32, tls: OpaquePointer? = nil) {
        self.fd = fd
        self.tls = tls
    }

    public final var isTLS: Bool { tls != nil }

    /// Puts TLS on a stream that began in the clear (a CONNECT tunnel, or TLS sniffed on a cleartext port).
    public final func startTLS(_ session: OpaquePointer) {
        precondition(tls == nil, "TLS started twice on one stream")
        tls = session
    }

    /// One read of up to `count` bytes into `buffer`.
    @inlinable
    public final func read(into buffer: UnsafeMutableRawPointer, count: Int) -> IOResult {
        guard let tls else { return SystemCall.read(fd, into: buffer, count: count) }
        let n = cssl_read(tls, buffer, Int32(min(count, Int(Int32.max))))
        switch n {
        case let n where n > 0: return .bytes(Int(n))
        case 0: return .closed
        case -1: return .wouldBlock
        default: return .error(ECONNRESET)
        }
    }

    /// One write of `bytes` (a TLS write sends at most 1 GiB of them).
    @inlinable
    public final func write(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        guard let tls else { return SystemCall.send(fd, bytes) }
        let n = cssl_write(tls, bytes.baseAddress, Int32(min(bytes.count, 1 << 30)))
        if n > 0 { return .bytes(Int(n)) }
        return n == -1 ? .wouldBlock : .error(EPIPE)
    }

    /// Sends the queue's bytes until the socket would block, a write fails, or all of it is sent; an emptied
    /// queue keeps its capacity only when that is at most `keep` bytes. Every write buffer of the HTTP server's
    /// connections and the WebSocket client's sockets is flushed through this (through `ByteQueue.drain`, which
    /// the fault proxy and the SIP pool use with their plain sockets); EPOLLOUT interest covers what stays unsent.
    @inlinable
    public final func flush(_ queue: inout ByteQueue, keepingCapacityUpTo keep: Int) -> ByteQueue.Drain {
        queue.drain(keepingCapacityUpTo: keep) { write($0) }
    }

    /// Sends TLS close_notify when possible, frees the TLS session and closes the socket. Once only.
    public final func close() {
        if let tls {
            cssl_shutdown(tls)
            cssl_free(tls)
            self.tls = nil
        }
        Glibc.close(fd)
    }
}
