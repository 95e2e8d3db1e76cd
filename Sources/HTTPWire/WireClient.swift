import CLinux
import CSSL
import CSSLClient
import EventPolling
import StreamIO
import WebSocketClient
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 client on one `EventThread` (the driver's per-worker epoll thread), for plain and TLS origins:
/// non-blocking connects, a keep-alive pool per origin, requests serialized once (`WireRequest`), responses
/// parsed over the bytes as they arrive (`HTTP1ResponseParser`), connect and response timeouts. Beside libcurl
/// (`Transport.HTTPClient`) as the raw-GET bench's second row: one epoll registration per connection that stays
/// on EPOLLIN between requests, so a steady keep-alive exchange costs one send and one read, with no epoll_ctl,
/// no per-request allocation but the response body, and no timer syscall while deadlines only move later.
///
/// TLS goes through StreamIO's `ClientTLS` context (shared with the wss and SIP pools) and the shared
/// `SocketStream` (CSSLClient's sessions: SNI, certificate and host-name checks). A request on a reused connection that the server closed
/// before answering is sent once more on a new connection, as libcurl does.
///
/// A host name is resolved once per origin, on the first request to it, with a blocking getaddrinfo (IP literals
/// and `localhost` need none): load runs name a handful of origins, resolved before the load ramps.
///
/// Thread rule: every method, and every completion, runs on `thread.queue`; make the client there too.
public final class WireClient: @unchecked Sendable {
    public typealias Completion = (Result<WireResponse, WireError>) -> Void

    public struct Configuration: Sendable {
        /// Connections open at once to one origin; past it requests wait for one to free up.
        public var maxConnectionsPerOrigin = 256
        /// Idle connections kept per origin for reuse; one more is closed when its exchange ends (libcurl's
        /// CURLMOPT_MAXCONNECTS, a cache size, not a limit on connections in use).
        public var maxIdlePerOrigin = Int.max
        /// TCP connect and TLS handshake (curl's CURLOPT_CONNECTTIMEOUT_MS); the request's timeout still bounds it.
        public var connectTimeoutMillis = 5_000
        public var limits = HTTP1ResponseParser.Limits()
        public init() {}
    }

    /// Connections opened, requests sent on a reused one, requests retried after a reused one closed.
    public struct Stats: Sendable, Equatable {
        public var opened = 0
        public var reused = 0
        public var retried = 0
    }

    let thread: EventThread
    let configuration: Configuration
    private(set) var tls: ClientTLS?
    /// Makes `tls` on the first request to an `https` origin (`init(thread:configuration:loadTLS:)`); nil once
    /// used. The system's CA store is ~200 M instructions to load, a run's worth of a plain-HTTP target's requests.
    private var loadTLS: (() -> Result<ClientTLS, WireError>)?
    /// What the loader answered when it failed: every secure request fails with it.
    private var tlsFailure: WireError?
    var handlerID: UInt32 = 0
    var byFD: [WireConnection?] = []
    private var pools: [WireOrigin: WireOriginPool] = [:]
    /// The pool of the last request: a load loop sends to one origin, so most sends skip the dictionary.
    private var lastPool: WireOriginPool?
    /// Where every connection's reads land; the parser copies what it keeps.
    let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    var timer: EventTimer?
    /// The instant the timer is armed for; 0 when disarmed.
    var timerAt: UInt64 = 0
    public internal(set) var stats = Stats()

    public init(thread: EventThread, configuration: Configuration = Configuration(), tls: ClientTLS? = nil) {
        self.thread = thread
        self.configuration = configuration
        self.tls = tls
        // OpenSSL writes with write(2): a reset connection would raise SIGPIPE and end the process.
        signal(SIGPIPE, SIG_IGN)
        handlerID = thread.register(ready: { [unowned self] fd, events in handle(fd, events) })
        timer = EventTimer(on: thread) { [unowned self] in expire() }
    }

    /// A client whose TLS context is made by `loadTLS` on the first request to an `https` origin, so a client that
    /// only speaks plain HTTP never loads a CA store. A failure of `loadTLS` fails that request and every later
    /// secure one with its error.
    public convenience init(thread: EventThread, configuration: Configuration = Configuration(),
                            loadTLS: @escaping () -> Result<ClientTLS, WireError>) {
        self.init(thread: thread, configuration: configuration, tls: nil)
        self.loadTLS = loadTLS
    }

    deinit {
        scratch.deallocate()
    }

    /// Connections open or opening, over all origins.
    public var openConnections: Int { pools.values.reduce(0) { $0 + $1.open } }

    /// Sends `request` on an idle connection of its origin, a new one, or (all busy) when one frees up;
    /// `completion` runs once, on the queue, never inside this call.
    public func send(_ request: WireRequest, completion: @escaping Completion) {
        let deadline = clinux_monotonic_ns() &+ UInt64(max(0, request.timeoutMillis)) &* 1_000_000
        let exchange = WireConnection.Exchange(request: request, completion: completion, deadline: deadline,
                                               retried: false)
        start(exchange)
    }

    func start(_ exchange: WireConnection.Exchange) {
        let origin = exchange.request.origin
        if origin.secure && tls == nil {
            if let loadTLS {
                self.loadTLS = nil
                switch loadTLS() {
                case .success(let made): tls = made
                case .failure(let error): tlsFailure = error
                }
            }
            if tls == nil { return later(exchange, tlsFailure ?? .noTLSContext) }
        }
        let pool: WireOriginPool
        if let last = lastPool, last.origin == origin {
            pool = last
        } else if let known = pools[origin] {
            pool = known
        } else {
            let host = origin.host == "localhost" ? "127.0.0.1" : origin.host
            guard let address = WebSocketClientPool.resolve(host) else {
                return later(exchange, .resolveFailed(host: origin.host))
            }
            pool = WireOriginPool(origin: origin, address: address)
            pools[origin] = pool
        }
        lastPool = pool
        if !exchange.request.freshConnection, let connection = pool.idle.popLast() {
            stats.reused += 1
            begin(connection, exchange)
        } else if pool.open < configuration.maxConnectionsPerOrigin || exchange.request.freshConnection {
            open(pool, exchange)
        } else {
            pool.enqueue(exchange)
        }
    }

    /// Reports a failure after the current batch: a loop that sends again from its completion must not recurse.
    private func later(_ exchange: WireConnection.Exchange, _ error: WireError) {
        thread.post { exchange.completion(.failure(error)) }
    }

    // MARK: - Connections

    private func open(_ pool: WireOriginPool, _ exchange: WireConnection.Exchange) {
        let origin = pool.origin
        let fd = clinux_connect_tcp(pool.address, Int32(origin.port))
        guard fd >= 0 else {
            let error: WireError = -fd == ECONNREFUSED ? .refused(host: origin.host, port: origin.port)
                : .connectFailed(host: origin.host, port: origin.port, errno: -fd)
            return later(exchange, error)
        }
        _ = clinux_set_nodelay(fd)
        var session: OpaquePointer?
        if origin.secure, let tls {
            guard let made = cssl_client_new(tls.context, fd, origin.host) else {
                Glibc.close(fd)
                return later(exchange, .tls("cannot create a session for \(origin.host)"))
            }
            session = made
        }
        let connection = WireConnection(stream: SocketStream(fd: fd, tls: session), pool: pool,
                                        limits: configuration.limits, interest: CLINUX_EPOLLOUT)
        guard thread.add(fd, events: CLINUX_EPOLLOUT, handler: handlerID) else {
            let code = errno
            connection.stream.close()
            return later(exchange, .connectFailed(host: origin.host, port: origin.port, errno: code))
        }
        let slot = Int(fd)
        if slot >= byFD.count { byFD.append(contentsOf: repeatElement(nil, count: slot + 1 - byFD.count)) }
        byFD[slot] = connection
        pool.open += 1
        stats.opened += 1
        connection.exchange = exchange
        connection.parser.reset(head: exchange.request.isHead,
                                collectsHeaders: exchange.request.collectsHeaders)
        let connectBy = clinux_monotonic_ns() &+ UInt64(max(0, configuration.connectTimeoutMillis)) &* 1_000_000
        connection.deadline = min(exchange.deadline, connectBy)
        arm(connection.deadline)
    }

    /// Puts `exchange` on a connection that is open (or opening) and free.
    func begin(_ connection: WireConnection, _ exchange: WireConnection.Exchange) {
        connection.exchange = exchange
        connection.parser.reset(head: exchange.request.isHead,
                                collectsHeaders: exchange.request.collectsHeaders)
        guard connection.phase == .ready else { return }
        connection.deadline = exchange.deadline
        arm(exchange.deadline)
        write(connection, exchange.request.bytes)
    }

    /// A connection whose exchange is done: the next waiting request takes it, else it idles in its pool.
    /// A waiting request whose deadline passed while it waited fails without being sent (sent, it would time out
    /// on the connection and close a healthy one).
    func release(_ connection: WireConnection) {
        let pool = connection.pool
        let now = clinux_monotonic_ns()
        var next = pool.dequeue()
        while let overdue = next, overdue.deadline <= now {
            later(overdue, .responseTimeout(millis: overdue.request.timeoutMillis))
            next = pool.dequeue()
        }
        if let next {
            stats.reused += 1
            begin(connection, next)
        } else if pool.idle.count < configuration.maxIdlePerOrigin {
            pool.idle.append(connection)
        } else {
            close(connection)
        }
    }

    /// Closes the connection; a waiting request, if any, gets a new one in its place.
    func close(_ connection: WireConnection) {
        let fd = Int(connection.fd)
        guard fd < byFD.count, byFD[fd] === connection else { return }
        byFD[fd] = nil
        thread.remove(connection.fd)
        connection.stream.close()
        connection.exchange = nil
        connection.deadline = 0
        let pool = connection.pool
        pool.open -= 1
        pool.removeIdle(connection)
        if pool.open < configuration.maxConnectionsPerOrigin, let next = pool.dequeue() { open(pool, next) }
    }

    /// Ends the connection's exchange with `error` and closes it.
    func fail(_ connection: WireConnection, _ error: WireError) {
        let exchange = connection.exchange
        close(connection)
        exchange?.completion(.failure(error))
    }

    func setInterest(_ connection: WireConnection, _ wanted: UInt32) {
        guard wanted != connection.interest else { return }
        connection.interest = wanted
        thread.modify(connection.fd, events: wanted, handler: handlerID)
    }

    /// Closes every connection, failing what is outstanding with `.clientClosed`; the client is unusable after.
    public func close() {
        var outstanding: [WireConnection.Exchange] = []
        for pool in pools.values { outstanding += pool.drainWaiting() }
        for case let connection? in byFD {
            if let exchange = connection.exchange { outstanding.append(exchange) }
            close(connection)
        }
        pools = [:]
        lastPool = nil
        timer?.close()
        timer = nil
        thread.unregister(handlerID)
        for exchange in outstanding { exchange.completion(.failure(.clientClosed)) }
    }
}
