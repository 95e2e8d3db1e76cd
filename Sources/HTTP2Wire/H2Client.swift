import CLibnghttp2
import CLinux
import CSSL
import CSSLClient
import EventPolling
import StreamIO
import WebSocketClient
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/2 client of one `https` origin on an `EventThread`, as a production APNs client is: one multiplexed
/// connection (TLS with ALPN `h2`, through StreamIO's `SocketStream` and CSSLClient's sessions), nghttp2's client
/// session for the framing (`H2Connection`), request and connect timeouts, and the two ways a server sheds a
/// connection handled as libcurl does: after a GOAWAY new requests go to a new connection while the old one
/// finishes what the server kept, and a request the server refused (above the GOAWAY's last stream, or reset with
/// REFUSED_STREAM) is sent once more on a new connection. Any other reset or a lost connection fails the request.
///
/// Requests submitted in one batch of the thread leave in one write: the flush is posted for the batch's end.
///
/// Thread rule: every method, and every completion, runs on `thread.queue`; make the client there too.
public final class H2Client: @unchecked Sendable {
    public typealias Completion = (Result<H2Response, H2Error>) -> Void

    /// Connections opened, GOAWAYs received, requests sent again after the server refused them.
    public struct Stats: Sendable, Equatable {
        public var opened = 0
        public var goAways = 0
        public var resent = 0
    }

    let thread: EventThread
    let host: String
    let port: Int
    /// `host:port`, the requests' `:authority`.
    let authority: String
    let tls: ClientTLS
    /// TCP connect and TLS handshake, as libcurl's CURLOPT_CONNECTTIMEOUT_MS.
    public var connectTimeoutMillis = 5_000
    /// The host's address, resolved on the first connection.
    private var address: String?
    /// The connection new requests go to; nil before the first and after a GOAWAY or a loss.
    private var current: H2Connection?
    /// Every open connection (the current one, and those finishing after a GOAWAY) by fd.
    var byFD: [Int32: H2Connection] = [:]
    private var handlerID: UInt32 = 0
    var timer: EventTimer?
    /// The instant the timer is armed for; 0 when disarmed.
    var timerAt: UInt64 = 0
    private var closed = false
    /// Where every read lands before nghttp2 takes it.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    public internal(set) var stats = Stats()

    /// `tls` must offer `h2` in ALPN (`H2Client.tls(caFile:certificatePath:)`).
    public init(thread: EventThread, host: String, port: Int, tls: ClientTLS) {
        self.thread = thread
        self.host = host
        self.port = port
        self.tls = tls
        authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        // OpenSSL writes with write(2): a reset connection would raise SIGPIPE and end the process.
        signal(SIGPIPE, SIG_IGN)
        handlerID = thread.register(ready: { [unowned self] fd, events in handle(fd, events) })
        timer = EventTimer(on: thread) { [unowned self] in expire() }
    }

    deinit {
        scratch.deallocate()
    }

    /// The TLS context the connections use (shared with another client of the same origin's settings).
    public var tlsContext: ClientTLS { tls }

    /// Connections open or opening.
    public var openConnections: Int { byFD.count }

    /// Sends `request` on the current connection (opening one if needed); `completion` runs once, on the queue,
    /// never inside this call.
    public func send(_ request: H2Request, completion: @escaping Completion) {
        let deadline = clinux_monotonic_ns() &+ UInt64(max(0, request.timeoutMillis)) &* 1_000_000
        start(H2Exchange(request: request, completion: completion, deadline: deadline))
    }

    func start(_ exchange: H2Exchange) {
        if closed { return later(exchange, .clientClosed) }
        if current == nil || current!.goneAway {
            current = nil
            switch open() {
            case .success(let made): current = made
            case .failure(let error): return later(exchange, error)
            }
        }
        let connection = current!
        arm(exchange.deadline)
        guard connection.phase == .ready else { return connection.waiting.append(exchange) }
        submit(exchange, on: connection)
    }

    private func submit(_ exchange: H2Exchange, on connection: H2Connection) {
        guard connection.submit(exchange, authority: authority) else {
            // Stream ids used up, or the session is closing: the next request opens a new connection.
            connection.goneAway = true
            return resend(exchange, or: .connectionLost)
        }
        guard !connection.flushPosted else { return }
        connection.flushPosted = true
        thread.post { [self] in
            connection.flushPosted = false
            if byFD[connection.fd] === connection { progress(connection) }
        }
    }

    /// Reports a failure after the current batch: a caller that sends again from its completion must not recurse.
    private func later(_ exchange: H2Exchange, _ error: H2Error) {
        thread.post { exchange.completion(.failure(error)) }
    }

    /// Sends a refused request once more (after the current batch, on whatever connection is current then).
    private func resend(_ exchange: H2Exchange, or error: H2Error) {
        guard !exchange.resent, !closed else { return later(exchange, error) }
        exchange.resent = true
        exchange.status = 0
        exchange.body = []
        exchange.sentBody = 0
        stats.resent += 1
        thread.post { [self] in start(exchange) }
    }

    /// A stream closed: answered (status and NO_ERROR), refused (sent again once), or reset.
    func settle(_ exchange: H2Exchange, errorCode: UInt32) {
        if errorCode == NGHTTP2_NO_ERROR.rawValue, exchange.status != 0 {
            exchange.completion(.success(H2Response(status: exchange.status, body: exchange.body)))
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            resend(exchange, or: .streamReset(code: errorCode))
        } else {
            exchange.completion(.failure(.streamReset(code: errorCode)))
        }
    }

    // MARK: - Connections

    private func open() -> Result<H2Connection, H2Error> {
        if address == nil {
            address = host == "localhost" ? "127.0.0.1" : WebSocketClientPool.resolve(host)
        }
        guard let address else { return .failure(.resolveFailed(host: host)) }
        let fd = clinux_connect_tcp(address, Int32(port))
        guard fd >= 0 else { return .failure(.connectFailed(errno: -fd)) }
        _ = clinux_set_nodelay(fd)
        guard let session = tls.session(fd: fd, host: host) else {
            Glibc.close(fd)
            return .failure(.tls("cannot create a session for \(host)"))
        }
        let openBy = clinux_monotonic_ns() &+ UInt64(max(0, connectTimeoutMillis)) &* 1_000_000
        let connection = H2Connection(client: self, stream: SocketStream(fd: fd, tls: session),
                                      interest: CLINUX_EPOLLOUT, openDeadline: openBy)
        guard thread.add(fd, events: CLINUX_EPOLLOUT, handler: handlerID) else {
            let code = errno
            connection.stream.close()
            return .failure(.connectFailed(errno: code))
        }
        byFD[fd] = connection
        stats.opened += 1
        arm(openBy)
        return .success(connection)
    }

    /// Closes `connection` and settles what it carried: requests the server never processed (above its GOAWAY's
    /// last stream) are sent again when `resendRefused`, the rest fail with `error`, in stream order.
    func lose(_ connection: H2Connection, _ error: H2Error, resendRefused: Bool = true) {
        guard byFD[connection.fd] === connection else { return }
        byFD[connection.fd] = nil
        thread.remove(connection.fd)
        connection.endSession()
        connection.stream.close()
        if current === connection { current = nil }
        let open = connection.streams.sorted { $0.key < $1.key }
        let waiting = connection.waiting
        connection.streams = [:]
        connection.waiting = []
        for (id, exchange) in open {
            if resendRefused && connection.goneAway && id > connection.lastStreamID {
                resend(exchange, or: error)
            } else {
                exchange.completion(.failure(error))
            }
        }
        for exchange in waiting { exchange.completion(.failure(error)) }
    }

    /// Closes every connection, failing what is outstanding with `.clientClosed`; the client is unusable after.
    public func close() {
        closed = true
        for fd in byFD.keys.sorted() {
            if let connection = byFD[fd] { lose(connection, .clientClosed, resendRefused: false) }
        }
        timer?.close()
        timer = nil
        thread.unregister(handlerID)
    }

    // MARK: - Readiness

    private func handle(_ fd: Int32, _ events: UInt32) {
        guard let connection = byFD[fd] else { return }
        switch connection.phase {
        case .connecting:
            let error = clinux_socket_error(fd)
            guard error == 0 else { return lose(connection, .connectFailed(errno: error)) }
            // A stale event of an earlier socket with this fd number must not pass for "connected".
            guard Self.isConnected(fd) else { return }
            connection.phase = .tlsHandshake
            stepTLS(connection)
        case .tlsHandshake:
            stepTLS(connection)
        case .ready:
            if events & CLINUX_EPOLLOUT != 0 {
                progress(connection)
                guard byFD[fd] === connection else { return }
            }
            if events & (CLINUX_EPOLLIN | CLINUX_EPOLLERR | CLINUX_EPOLLHUP) != 0 { readIn(connection) }
        }
    }

    private func stepTLS(_ connection: H2Connection) {
        guard let session = connection.stream.tls else { return }
        switch cssl_handshake(session) {
        case 1:
            var name = [CChar](repeating: 0, count: 32)
            let length = cssl_alpn_selected(session, &name, Int32(name.count))
            let alpn = String(decoding: name.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard alpn == "h2" else { return lose(connection, .noHTTP2(alpn: alpn)) }
            guard connection.startSession() else { return lose(connection, .tls("nghttp2 made no client session")) }
            connection.phase = .ready
            connection.openDeadline = 0
            let waiting = connection.waiting
            connection.waiting = []
            for exchange in waiting {
                guard connection.submit(exchange, authority: authority) else {
                    exchange.completion(.failure(.connectionLost))
                    continue
                }
            }
            progress(connection)
        case 0:
            // ClientHello went out with the first step; from here the handshake waits on the server.
            setInterest(connection, CLINUX_EPOLLIN)
        default:
            var buffer = [CChar](repeating: 0, count: 256)
            cssl_last_error(&buffer, buffer.count)
            lose(connection, .tls(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) },
                                         as: UTF8.self)))
        }
    }

    /// Reads until the socket would block, handing every chunk to nghttp2 (answers complete inside), then
    /// writes what that queued (SETTINGS and PING acks, window updates, requests sent from completions).
    private func readIn(_ connection: H2Connection) {
        let base = scratch.baseAddress!
        loop: while true {
            switch connection.stream.read(into: base, count: scratch.count) {
            case .bytes(let count):
                guard connection.receive(UnsafeRawBufferPointer(start: base, count: count)) else {
                    return lose(connection, .connectionLost)
                }
                // A short read emptied a plain socket; a TLS read returns one record, so read on until it blocks.
                if count < scratch.count && connection.stream.tls == nil { break loop }
            case .wouldBlock:
                break loop
            case .closed, .error:
                return lose(connection, .connectionLost)
            }
        }
        progress(connection)
    }

    /// Frames what nghttp2 has queued, writes as much as the socket takes, and retires a connection that is done
    /// (GOAWAY and no stream left, or nghttp2 finished with it).
    func progress(_ connection: H2Connection) {
        guard connection.collectFrames() else { return lose(connection, .connectionLost) }
        if !connection.outbound.isEmpty {
            let drain = connection.stream.flush(&connection.outbound, keepingCapacityUpTo: 64 * 1024)
            if drain.failed { return lose(connection, .connectionLost) }
        }
        if connection.outbound.isEmpty
            && ((connection.goneAway && connection.streams.isEmpty) || connection.sessionFinished) {
            return lose(connection, .connectionLost)
        }
        setInterest(connection, connection.outbound.isEmpty ? CLINUX_EPOLLIN : CLINUX_EPOLLIN | CLINUX_EPOLLOUT)
    }

    private func setInterest(_ connection: H2Connection, _ wanted: UInt32) {
        guard wanted != connection.interest else { return }
        connection.interest = wanted
        thread.modify(connection.fd, events: wanted, handler: handlerID)
    }

    private static func isConnected(_ fd: Int32) -> Bool {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
    }
}
