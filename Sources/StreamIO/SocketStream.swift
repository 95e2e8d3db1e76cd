import CSSL
#if canImport(Glibc)
import Glibc
#endif

/// A connection's socket, in the clear or under TLS, with one read/write interface for both protocols.
///
/// Thread rule: owned by one connection on its event-loop thread. Shared by the HTTP server's connections (which
/// add what a server knows of its peer, `ByteStream`) and the WebSocket client's sockets, so neither module imports
/// the other. Results follow `read(2)`/`send(2)`: a count,
/// 0 for end of stream (reads only), or -1 with `errno` set (`EAGAIN` when the call would block; TLS's "wants
/// the other direction" is reported as `EAGAIN` too, since the loop keeps read interest on and write interest
/// whenever bytes are waiting).
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

    public final func read(_ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        guard let tls else { return Glibc.read(fd, buffer, count) }
        let n = cssl_read(tls, buffer, Int32(min(count, Int(Int32.max))))
        switch n {
        case let n where n > 0: return Int(n)
        case 0: return 0
        case -1:
            errno = EAGAIN
            return -1
        default:
            errno = ECONNRESET
            return -1
        }
    }

    public final func write(_ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        guard let tls else { return send(fd, buffer, count, Int32(MSG_NOSIGNAL)) }
        let n = cssl_write(tls, buffer, Int32(min(count, 1 << 30)))
        if n > 0 { return Int(n) }
        errno = n == -1 ? EAGAIN : EPIPE
        return -1
    }

    /// What a flush did: whether any byte went out, and whether a write failed (the connection must close).
    public struct Flush {
        public var progressed = false
        public var failed = false
    }

    /// Sends `buffer[index...]`, advancing `index`, until the socket would block, a write fails, or all of it is
    /// sent; then empties `buffer` (keeping its capacity when at most `keep` bytes) and resets `index`. Both
    /// protocols flush their write buffers through this; EPOLLOUT interest covers what stays unsent.
    public final func flush(_ buffer: inout [UInt8], from index: inout Int, keepingCapacityUpTo keep: Int) -> Flush {
        var result = Flush()
        while index < buffer.count {
            let offset = index
            let sent = buffer.withUnsafeBytes { write($0.baseAddress! + offset, $0.count - offset) }
            if sent > 0 {
                index += sent
                result.progressed = true
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                result.failed = !(sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return result
            }
        }
        buffer.removeAll(keepingCapacity: buffer.capacity <= keep)
        index = 0
        return result
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
