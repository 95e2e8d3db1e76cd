import CLinux
import CSSL
import WebSocket
#if canImport(Glibc)
import Glibc
#endif

/// One client socket of a `WebSocketClientPool`: its descriptor, its TLS session, where it is in opening, and
/// the RFC 6455 state machine. Kept small: at tens of thousands of idle sockets each byte here counts (an
/// idle socket holds no read or write buffer; `ClientConnection` frees them when drained).
///
/// Thread rule: owned by its pool, used on the pool's event-thread queue only.
final class ClientSocket {
    enum Phase {
        case tcpConnecting
        case tlsHandshake
        case ready
    }

    let id: UInt64
    let fd: Int32
    var tls: OpaquePointer?
    var phase: Phase = .tcpConnecting
    var connection: ClientConnection
    /// The epoll interest last set.
    var interest: UInt32
    /// Monotonic nanoseconds by which the socket must be open (connecting) or closed (closing); 0 for none.
    var deadline: UInt64
    /// How the state machine ended the connection, reported once the last bytes are written.
    var finalReport: CloseReport?

    init(id: UInt64, fd: Int32, connection: ClientConnection, interest: UInt32, deadline: UInt64) {
        self.id = id
        self.fd = fd
        self.connection = connection
        self.interest = interest
        self.deadline = deadline
    }

    /// `read(2)`'s contract for both protocols: a count, 0 at end of stream, -1 with errno (EAGAIN when the
    /// call would block, in either direction for TLS).
    func read(_ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        guard let tls else { return Glibc.read(fd, buffer, count) }
        let n = cssl_read(tls, buffer, Int32(min(count, Int(Int32.max))))
        if n > 0 { return Int(n) }
        if n == 0 { return 0 }
        errno = n == -1 ? EAGAIN : ECONNRESET
        return -1
    }

    func write(_ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        guard let tls else { return send(fd, buffer, count, Int32(MSG_NOSIGNAL)) }
        let n = cssl_write(tls, buffer, Int32(min(count, 1 << 30)))
        if n > 0 { return Int(n) }
        errno = n == -1 ? EAGAIN : EPIPE
        return -1
    }

    /// Sends close_notify when the session is up, frees it, closes the descriptor. Once only.
    func closeDescriptor() {
        if let tls {
            cssl_shutdown(tls)
            cssl_free(tls)
            self.tls = nil
        }
        Glibc.close(fd)
    }
}
