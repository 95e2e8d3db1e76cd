import CLinux
import StreamIO
import WebSocket

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
    /// The socket, cleartext or TLS, read and written as the HTTP server's connections do.
    let stream: SocketStream
    var fd: Int32 { stream.fd }
    var tls: OpaquePointer? { stream.tls }
    var phase: Phase = .tcpConnecting
    var connection: ClientConnection
    /// The epoll interest last set.
    var interest: UInt32
    /// Monotonic nanoseconds by which the socket must be open (connecting) or closed (closing); 0 for none.
    var deadline: UInt64
    /// How the state machine ended the connection, reported once the last bytes are written.
    var finalReport: CloseReport?
    /// The owner stopped reading (a stalled app, a fault): no EPOLLIN until it resumes.
    var paused = false

    /// EPOLLIN unless reading is paused.
    var readInterest: UInt32 { paused ? 0 : CLINUX_EPOLLIN }

    init(id: UInt64, stream: SocketStream, connection: ClientConnection, interest: UInt32, deadline: UInt64) {
        self.id = id
        self.stream = stream
        self.connection = connection
        self.interest = interest
        self.deadline = deadline
    }
}
