import Bytes
import StreamIO

/// One HTTP/1.1 connection of a `WireClient`: its socket (cleartext or TLS, the `SocketStream` the HTTP server
/// and the WebSocket client read and write through), where it is in opening, the response parser, and the one
/// exchange it carries (no pipelining: a request is written only once the previous response is complete).
///
/// Thread rule: owned by its client, used on the client's event-thread queue only.
final class WireConnection {
    enum Phase {
        case connecting
        case tlsHandshake
        case ready
    }

    /// The request being answered and who waits for the answer.
    struct Exchange {
        var request: WireRequest
        var completion: WireClient.Completion
        /// Monotonic nanoseconds by which the response must be complete.
        var deadline: UInt64
        /// Already retried once on a fresh connection after a reused one closed before answering.
        var retried: Bool
    }

    let stream: SocketStream
    /// The origin's pool this connection belongs to.
    let pool: WireOriginPool
    var phase = Phase.connecting
    var parser: HTTP1ResponseParser
    /// Request bytes not yet taken by the socket.
    var outbound = ByteQueue()
    var exchange: Exchange?
    /// Monotonic nanoseconds by which the connection must be open (while opening) or its exchange answered; 0: none.
    var deadline: UInt64 = 0
    /// The epoll interest last set.
    var interest: UInt32
    /// Responses this connection has completed (more than 0: a reused connection).
    var served = 0

    var fd: Int32 { stream.fd }

    init(stream: SocketStream, pool: WireOriginPool, limits: HTTP1ResponseParser.Limits, interest: UInt32) {
        self.stream = stream
        self.pool = pool
        self.parser = HTTP1ResponseParser(limits: limits)
        self.interest = interest
    }
}
