import CLinux
import CSSL
import CSSLClient
import Determinism
import EventPolling
import StreamIO
import WebSocket
#if canImport(Glibc)
import Glibc
#endif

/// Client WebSockets (ws and wss) on one `EventThread`: the driver's per-worker epoll thread, so a device's
/// socket lives on the same thread as its timers and HTTP transfers and needs no lock. Built for tens of
/// thousands of mostly idle sockets: one epoll registration and one small object per socket, one shared read
/// buffer, TLS sessions that release their record buffers when idle.
///
/// Thread rule: every method, and `onEvent`, runs on `thread.queue`; create the pool there too (or before the
/// thread has any descriptor of its own in use).
public final class WebSocketClientPool: @unchecked Sendable {
    /// Called for every socket event: `.opened`, each `.message`, `.pong`, and exactly one `.closed` per socket
    /// that `open` returned.
    public typealias EventHandler = (_ socket: UInt64, _ event: ClientConnection.Event) -> Void

    public struct Limits: Sendable {
        public var maxMessageBytes = 1 << 20
        /// TCP connect + TLS + Upgrade must finish within this.
        public var openTimeoutNanos: UInt64 = 10_000_000_000
        /// After this end's close frame, the peer's must come within this.
        public var closeTimeoutNanos: UInt64 = 5_000_000_000
        public init() {}
    }

    private let thread: EventThread
    private let tls: ClientTLS?
    private let limits: Limits
    private let onEvent: EventHandler
    private var handlerID: UInt32 = 0
    private var sockets: [UInt64: ClientSocket] = [:]
    private var byFD: [ClientSocket?] = []
    private var nextID: UInt64 = 1
    /// Where every socket's reads land before the state machine copies what it keeps.
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private var sweepTimer: EventTimer?
    /// Sockets opened, and how the closed ones ended: the pool's books.
    public private(set) var tally = CloseTally()

    public init(thread: EventThread, tls: ClientTLS? = nil, limits: Limits = Limits(),
                onEvent: @escaping EventHandler) {
        self.thread = thread
        self.tls = tls
        self.limits = limits
        self.onEvent = onEvent
        // OpenSSL writes with write(2), which raises SIGPIPE once the server has reset the connection (a reconnect
        // storm does exactly that) and would end the process silently; HTTPServer.start does the same, so a
        // process with a pool and no server (ws-bench hold) needs it here.
        signal(SIGPIPE, SIG_IGN)
        handlerID = thread.register(ready: { [unowned self] fd, events in handle(fd, events) })
        sweepTimer = EventTimer(on: thread) { [unowned self] in sweep() }
        sweepTimer?.arm(atMonotonicNanos: clinux_monotonic_ns() + 1_000_000_000)
    }

    deinit {
        scratch.deallocate()
    }

    /// Sockets not yet reported closed.
    public var count: Int { sockets.count }

    // MARK: - Opening

    /// Starts connecting to `url` (at `address`, an IP literal, when given; else the URL's host, which must be an
    /// IP literal or `localhost`: resolve names once with `resolve` before a load run, not per socket). The
    /// socket's id comes back at once; `.opened` or `.closed` follows on the queue.
    public func open(_ url: WebSocketURL, address: String? = nil, headers: [(name: String, value: String)] = [],
                     random: SeededRandom) -> Result<UInt64, WebSocketClientError> {
        let connection: ClientConnection
        do {
            connection = try ClientConnection(url: url, headers: headers, random: random,
                                              maxMessageBytes: limits.maxMessageBytes)
        } catch {
            return .failure(.handshake(error))
        }
        if url.secure && tls == nil { return .failure(.noTLSContext) }
        let host = address ?? (url.host == "localhost" ? "127.0.0.1" : url.host)
        let fd = clinux_connect_tcp(host, Int32(url.port))
        guard fd >= 0 else { return .failure(.connectFailed(host: host, port: url.port, errno: -fd)) }
        _ = clinux_set_nodelay(fd)
        var tlsSession: OpaquePointer?
        if url.secure, let tls {
            guard let session = cssl_client_new(tls.context, fd, url.host) else {
                Glibc.close(fd)
                return .failure(.tlsSetupFailed("cannot create a session for \(url.host)"))
            }
            tlsSession = session
        }
        let id = nextID
        nextID += 1
        let socket = ClientSocket(id: id, stream: SocketStream(fd: fd, tls: tlsSession), connection: connection,
                                  interest: CLINUX_EPOLLOUT, deadline: clinux_monotonic_ns() &+ limits.openTimeoutNanos)
        guard thread.add(fd, events: CLINUX_EPOLLOUT, handler: handlerID) else {
            socket.stream.close()
            return .failure(.connectFailed(host: host, port: url.port, errno: errno))
        }
        sockets[id] = socket
        let slot = Int(fd)
        if slot >= byFD.count { byFD.append(contentsOf: repeatElement(nil, count: slot + 1 - byFD.count)) }
        byFD[slot] = socket
        tally.countOpen()
        return .success(id)
    }

    /// Resolves a host name to an IP literal (blocking getaddrinfo): once per target, before opening sockets.
    public static func resolve(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(first.pointee.ai_addr, first.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0,
                          NI_NUMERICHOST) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: - Sending

    /// Queues a text message; false when the socket is unknown or not open.
    @discardableResult
    public func send(_ id: UInt64, text: String, maxFrameBytes: Int = .max) -> Bool {
        guard let socket = sockets[id], (try? socket.connection.send(text: text, maxFrameBytes: maxFrameBytes)) != nil
        else { return false }
        flush(socket)
        return true
    }

    @discardableResult
    public func send(_ id: UInt64, binary: [UInt8]) -> Bool {
        guard let socket = sockets[id], (try? socket.connection.send(binary: binary)) != nil else { return false }
        flush(socket)
        return true
    }

    @discardableResult
    public func ping(_ id: UInt64, _ payload: [UInt8] = []) -> Bool {
        guard let socket = sockets[id], (try? socket.connection.ping(payload)) != nil else { return false }
        flush(socket)
        return true
    }

    /// Starts the closing handshake (`.closed` follows when the server answers, or at the close timeout).
    public func close(_ id: UInt64, _ code: CloseCode = .normal, reason: String = "") {
        guard let socket = sockets[id] else { return }
        if let report = socket.connection.close(code, reason: reason) {
            finish(socket, report)
            return
        }
        socket.deadline = clinux_monotonic_ns() &+ limits.closeTimeoutNanos
        flush(socket)
    }

    /// Stops reading the socket (`paused: true`) or starts again: a stalled app, whose server sees its writes
    /// pile up. Pings, closes and messages wait in the kernel; only an error or hang-up is still read.
    public func setReading(_ id: UInt64, paused: Bool) {
        guard let socket = sockets[id], socket.paused != paused else { return }
        socket.paused = paused
        guard socket.phase == .ready else { return }
        setInterest(socket, socket.readInterest | (socket.interest & CLINUX_EPOLLOUT))
    }

    /// Drops the socket with no close frame (an abrupt close; the server sees a lost connection).
    public func abort(_ id: UInt64) {
        guard let socket = sockets[id] else { return }
        if let report = socket.connection.abort() { finish(socket, report) }
    }

    // MARK: - Bookkeeping (queue only)

    var byFDCount: Int { byFD.count }
    var scratchBase: UnsafeMutableRawPointer { scratch.baseAddress! }
    var scratchCount: Int { scratch.count }
    func forEachSocket(_ body: (ClientSocket) -> Void) {
        for socket in sockets.values { body(socket) }
    }

    func socket(at fd: Int32) -> ClientSocket? { byFD[Int(fd)] }

    /// Whether the socket is still the pool's (not finished by an earlier step of the same event).
    func isLive(_ socket: ClientSocket) -> Bool { sockets[socket.id] === socket }

    func setInterest(_ socket: ClientSocket, _ wanted: UInt32) {
        guard wanted != socket.interest else { return }
        socket.interest = wanted
        thread.modify(socket.fd, events: wanted, handler: handlerID)
    }

    func emit(_ id: UInt64, _ event: ClientConnection.Event) { onEvent(id, event) }

    /// The state machine ended the connection; the socket closes once its last bytes (a close frame) are out.
    func closing(_ socket: ClientSocket, _ report: CloseReport) {
        socket.finalReport = report
    }

    /// Closes the socket and reports how it ended: `report`, else what the state machine said, else a lost
    /// connection. Exactly once per socket.
    func finish(_ socket: ClientSocket, _ report: CloseReport?) {
        guard isLive(socket) else { return }
        let final = report ?? socket.finalReport ?? CloseReport(cause: .transport, code: .abnormal, reason: "")
        sockets[socket.id] = nil
        if Int(socket.fd) < byFD.count, byFD[Int(socket.fd)] === socket { byFD[Int(socket.fd)] = nil }
        thread.remove(socket.fd)
        socket.stream.close()
        tally.count(final)
        onEvent(socket.id, .closed(final))
    }

    func rearmSweep(_ now: UInt64) {
        sweepTimer?.arm(atMonotonicNanos: now &+ 1_000_000_000)
    }

    /// Aborts every socket and stops the sweep timer: call before stopping the thread.
    public func shutDown() {
        for id in sockets.keys.sorted() { abort(id) }
        sweepTimer?.close()
        sweepTimer = nil
        thread.unregister(handlerID)
    }
}
