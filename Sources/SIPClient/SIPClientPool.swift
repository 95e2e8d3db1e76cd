import Bytes
import CLinux
import CSSL
import Determinism
import EventPolling
import SIP
import StreamIO
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// SIP user agents on one `EventThread` (the Driver's per-worker epoll thread, beside its HTTP transfers and
/// WebSockets): the third device signaling kind. Each agent has its own socket (UDP on an ephemeral loopback port,
/// or one TCP connection to the proxy), so the proxy sees one contact per device as it would see phones; with
/// `socketsShared` the UDP agents share one socket instead, as SIPp's (`SIPClientPool+Shared`, docs/SIP.md).
///
/// Timers: one `EventTimer`, armed for the earliest of the agents' deadlines (a heap noted each time an agent was
/// touched, `AgentDeadlines`) and the held datagrams'; it advances the agents that are due and arms itself again.
/// Until 2026-12-07 it ticked every 10 ms while agents existed, due or not (`armTicker`).
/// Thread rule: every method, and `onEvent`, runs on `thread.queue`; create the pool there too.
// limits: 16 stored properties: the shared-socket mode's switch and socket (one tuple) beside the per-device tables.
public final class SIPClientPool: @unchecked Sendable {
    public typealias EventHandler = SIPAgentEventHandler

    let thread: EventThread
    /// The timer and the agents' deadlines (`clock` tells the time).
    var timing = PoolTiming()
    let clock: any Clock
    /// The outbound proxy (Kamailio): where requests go and TCP agents connect.
    let proxy: (address: sockaddr_in, host: String, port: Int)
    let onEvent: EventHandler
    /// The client TLS context TLS agents' sessions come from (the CA the proxy's certificate is checked against).
    let tls: ClientTLS?
    var handlerID: UInt32 = 0
    /// By agent id and by descriptor: arrays indexed by the key (`SlotTable`), not hashed per datagram.
    var agents = SlotTable<SIPUserAgent>()
    private var sockets = SlotTable<SIPSocket>()
    private var byFD = SlotTable<SIPSocket>()
    /// UDP senders, by the handle agents answer them with.
    var sources: DatagramSources
    /// A stream's reads land in `scratch`; what one `recvmmsg` on a UDP agent's socket reads in `datagrams` (a UDP
    /// datagram is at most 65,507 bytes).
    private let buffers = (scratch: UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16),
                           datagrams: DatagramBatch(capacity: 4, stride: 65_536))
    /// With `tls.keepsSessions` (a device's `tls_resumption`): each device's last TLS session, by its user (a
    /// device's agents come and go with its sleeps), offered on its next connection.
    var savedTLS: [String: TLSSavedSession] = [:]
    var books = PoolBooks()  // the closed agents' counters (so `counters` keeps them), refused sends
    public var sendErrors: Int { books.sendErrors }  // datagrams or stream writes the kernel refused
    /// The datagram filter and the datagrams it held back (sent, or read, when they are due).
    var held = HeldDatagrams()
    /// `socketsShared`, and the one UDP socket the agents added since share, opened with the first (`+Shared`).
    var sharing = SharedMode()
    /// Decides the fate of every UDP datagram before it is sent or read (a run's chaos); nil passes all.
    public var datagramFilter: SIPDatagramFilter? {
        get { held.filter }
        set { held.filter = newValue }
    }

    public init(thread: EventThread, proxyHost: String, proxyPort: Int, clock: any Clock = MonotonicClock(),
                tls: ClientTLS? = nil, onEvent: @escaping EventHandler) throws(SIPClientError) {
        guard let proxy = SIPSocket.ipv4(proxyHost, port: proxyPort) else { throw .badProxyAddress(proxyHost) }
        self.thread = thread
        self.tls = tls
        self.clock = clock
        self.proxy = (proxy, proxyHost, proxyPort)
        sources = DatagramSources(proxy: proxy)
        self.onEvent = onEvent
        signal(SIGPIPE, SIG_IGN)
        handlerID = thread.register(ready: { [unowned self] fd, events in handle(fd, events) })
        timing.ticker = EventTimer(on: thread) { [unowned self] in tick() }
        // A clock a test moves by hand: the ticker's arming is a delay from the clock's time, so plan it again.
        timing.waking = clock.wakeOnMove { [weak self, thread] in thread.post { self?.clockMoved() } }
    }

    deinit { buffers.scratch.deallocate() }

    /// Opens an agent's socket and returns its id; the agent does nothing until told (`perform`). Give every agent
    /// its own `seed` (the Driver derives one per device): Call-IDs, tags and branches come from it.
    public func add(account: SIPAccount, transport: SIPTransportKind, seed: UInt64) -> Result<Int, SIPClientError> {
        if socketsShared, transport == .udp { return addShared(account: account, seed: seed) }
        let id = books.opened + 1
        let socket: SIPSocket
        switch openSocket(id, transport, seed: seed, user: account.user) {
        case .success(let opened): socket = opened
        case .failure(let error): return .failure(error)
        }
        books.opened = id
        // A WebSocket agent has no address a proxy could reach: Via and Contact name a `.invalid` host of its own
        // (RFC 7118 §5.2), the proxy answers on the connection.
        let invalid = transport.isWebSocket ? "d\(String(seed % 0xFFFF_FFFF, radix: 36)).invalid" : nil
        let agent = SIPUserAgent(account: account, transport: transport, localPort: Int(clinux_local_port(socket.fd)),
                                 seed: seed, sentByHost: invalid)
        agents[id] = agent
        install(socket, agent)
        return .success(id)
    }

    /// A new socket for agent `id`: UDP, or a connection to the proxy with its TLS session and WebSocket link.
    func openSocket(_ id: Int, _ transport: SIPTransportKind, seed: UInt64, user: String)
        -> Result<SIPSocket, SIPClientError> {
        guard transport.isStream else {
            return SIPSocket.udp(host: "127.0.0.1").map { SIPSocket(fd: $0, agent: id, transport: transport) }
        }
        let opened: (fd: Int32, tls: OpaquePointer?)
        switch connectStream(transport, resuming: savedTLS[user]) {
        case .success(let stream): opened = stream
        case .failure(let error): return .failure(error)
        }
        var link: SIPWebSocketLink?
        if transport.isWebSocket {
            do {
                link = try SIPWebSocketLink(host: proxy.host, port: proxy.port, secure: transport.isSecure,
                                            seed: seed &+ UInt64(books.opened))
            } catch {
                Glibc.close(opened.fd)
                return .failure(.webSocketUnavailable(error.description))
            }
        }
        return .success(SIPSocket(fd: opened.fd, agent: id, transport: transport, tls: opened.tls, webSocket: link))
    }

    /// Puts `socket` on the event thread for `agent`: polled for writes too until its connect completes, and its
    /// TLS handshake started.
    func install(_ socket: SIPSocket, _ agent: SIPUserAgent) {
        sockets[socket.agent] = socket
        byFD[socket.fd] = socket
        thread.add(socket.fd, events: socket.connected ? CLINUX_EPOLLIN : CLINUX_EPOLLIN | CLINUX_EPOLLOUT,
                   handler: handlerID)
        if socket.transport.isStream, socket.connected { agent.report(.connected(at: clock.nowNanos())) }
        if socket.handshaking { stepHandshake(socket, agent) }
    }

    public func agent(_ id: Int) -> SIPUserAgent? { agents[id] }

    /// Every agent's books, closed agents included.
    public var counters: SIPCounters {
        var total = books.closed
        shared?.book(into: &total)
        var sum = books.closedTally
        for agent in agents.values { agent.addCounters(to: &total, tally: &sum) }
        for agent in books.parked.values { agent.addCounters(to: &total, tally: &sum) }  // each kept agent once
        sum.fold(into: &total)
        return total
    }

    /// The UDP or TCP port agent `id` listens on (what its Contact names).
    public func localPort(_ id: Int) -> Int? { agents[id]?.localPort }

    /// `close`; its socket closed unless a failed connection took it; `park` keeps the agent with its books.
    func close(_ id: Int, keepingAgent: Bool) {
        guard let agent = agents.removeValue(forKey: id) else { return }
        if !keepingAgent { books.addClosed(agent) }  // its tally folded only when the total is read
        timing.deadlines.remove(id)
        guard let socket = sockets.removeValue(forKey: id) else { return }
        keepTLSSession(socket, of: agent)
        byFD[socket.fd] = nil
        // No EPOLL_CTL_DEL first: closing the descriptor takes it off the epoll set (no other descriptor refers to
        // its socket), and the DEL was one system call more per agent closed, two per wake call (issue 33).
        socket.stream.close()
    }

    public func closeAll() {
        for id in Array(agents.keys) { close(id) }
        timing.ticker?.close()
        timing.ticker = nil
        if let token = timing.waking { clock.stopWaking(token) }
        timing.waking = nil
        thread.unregister(handlerID)
        closeShared()
    }

    // MARK: - Event thread

    func flush(_ id: Int) {
        guard let agent = agents[id] else { return }
        flush(id, agent, sockets[id])
    }

    /// `flush(_:)` with the agent and its socket (nil: its connection failed for good) already in hand: a datagram's
    /// handling has both, and looking them up again retained and released each once more per datagram.
    func flush(_ id: Int, _ agent: SIPUserAgent, _ socket: SIPSocket?) {
        timing.deadlines.note(id, agent.nextDeadline)
        if let socket {
            agent.drainOutbox { outbox in send(outbox, id, socket) }
        } else if let shared, shared.carries(id) {
            agent.drainOutbox { outbox in sendShared(outbox, id, shared) }
        } else {
            // Its connection failed for good (a TLS certificate refused): what it would send is lost, what it
            // tells is still told.
            books.sendErrors += agent.takeOutbox().count
        }
        tell(id, agent)
        armTicker()
    }

    private func send(_ outbox: [(bytes: [UInt8], to: SIPUserAgent.Destination)], _ id: Int, _ socket: SIPSocket) {
        for (bytes, destination) in outbox {
            switch socket.transport {
            case .udp:
                let address: sockaddr_in
                switch destination {
                case .proxy: address = proxy.address
                case .source(let handle): address = sources.address(handle)
                }
                switch held.filter?(id, true, SIPStartLine.label(bytes), bytes) ?? .pass {
                case .pass: if !socket.sendDatagram(bytes, to: address) { books.sendErrors += 1 }
                case .drop: continue
                case .delay(let nanos): held.sends.append((clock.nowNanos() + nanos, id, bytes, address))
                }
            case .tcp, .tls, .ws, .wss:
                if socket.send(bytes), !socket.wantsWrite, !socket.handshaking {
                    socket.wantsWrite = true
                    thread.modify(socket.fd, events: CLINUX_EPOLLIN | CLINUX_EPOLLOUT, handler: handlerID)
                }
            }
        }
    }

    /// Reports agent `id`'s events in order, each followed by what it meant to a recovery under way (a flow's
    /// re-REGISTER answered or refused: `SIPUserAgent.recoveryHeard`).
    func tell(_ id: Int, _ agent: SIPUserAgent) {
        agent.drainEvents { events in
            let onEvent = onEvent  // loaded (its context retained) once for the list, not once per event
            for event in events {
                onEvent(id, event)
                guard agent.recovering, let step = agent.recoveryHeard(event, now: clock.nowNanos()) else {
                    continue
                }
                timing.deadlines.note(id, agent.nextDeadline)
                onEvent(id, .flow(step))
            }
        }
    }

    private func handle(_ fd: Int32, _ events: UInt32) {
        if let shared, fd == shared.fd { return sharedReady(shared) }
        guard let socket = byFD[fd], let agent = agents[socket.agent] else { return }
        if !socket.connected, events & CLINUX_EPOLLERR == 0 {
            // The non-blocking connect completed (`wake.connect`); write polling is left to what is pending.
            socket.connected = true
            socket.wantsWrite = !socket.handshaking
            agent.report(.connected(at: clock.nowNanos()))
        }
        if socket.handshaking {
            stepHandshake(socket, agent)
            guard !socket.handshaking, byFD[fd] === socket else { return }
        }
        // Under TLS a write can wait on a read (a renegotiation, a key update): any event retries it.
        let retry = events & CLINUX_EPOLLOUT != 0 || (socket.stream.isTLS && !socket.pending.isEmpty)
        if retry, !socket.flush(), socket.wantsWrite {
            socket.wantsWrite = false
            thread.modify(fd, events: CLINUX_EPOLLIN, handler: handlerID)
        }
        guard events & (CLINUX_EPOLLIN | CLINUX_EPOLLERR | CLINUX_EPOLLHUP) != 0 else { return }
        switch socket.transport {
        case .udp:
            readDatagrams(socket, agent)
            flush(socket.agent, agent, socket)  // a UDP socket stays the agent's while it reads
        case .tcp, .tls:
            readStream(socket, agent)
            flush(socket.agent)  // a broken stream may have left the agent another socket, or none
        case .ws, .wss:
            readWebSocket(socket, agent)
            flush(socket.agent)
        }
    }

    /// Drains a UDP agent's socket with `recvmmsg`, up to 64 datagrams a wake: one system call for what waits (a
    /// batch short of its capacity says the socket is empty, so no call comes back with EAGAIN).
    private func readDatagrams(_ socket: SIPSocket, _ agent: SIPUserAgent) {
        let batch = buffers.datagrams  // taken once: each read of it off the pool retained and released it
        for _ in 0..<(64 / batch.capacity) {
            let read = SystemCall.receiveDatagrams(socket.fd, into: batch)
            guard case .bytes(let count) = read else { return }
            for i in 0..<count { readDatagram(i, batch, socket, agent) }
            if count < batch.capacity { return }
        }
    }

    private func readDatagram(_ i: Int, _ batch: DatagramBatch, _ socket: SIPSocket, _ agent: SIPUserAgent) {
        let from = batch.source(i)
        let handle = sources.remember(from)
        let bytes = batch[i].assumingMemoryBound(to: UInt8.self)
        guard let filter = held.filter else {
            // Parsed where it was read: the copy into an array is made only for a filter to see or hold it.
            agent.receive(datagram: bytes, source: handle, now: clock.nowNanos())
            return
        }
        let datagram = Array(bytes)
        switch filter(socket.agent, false, SIPStartLine.label(datagram), datagram) {
        case .pass: agent.receive(datagram: datagram, source: handle, now: clock.nowNanos())
        case .drop: return
        case .delay(let nanos): held.reads.append((clock.nowNanos() + nanos, socket.agent, datagram, handle))
        }
    }

    private func readStream(_ socket: SIPSocket, _ agent: SIPUserAgent) {
        while true {
            let read = socket.stream.read(into: buffers.scratch.baseAddress!, count: buffers.scratch.count)
            if case .bytes(let n) = read {
                socket.parser.append(UnsafeRawBufferPointer(rebasing: buffers.scratch[..<n]))
                do {
                    while let message = try socket.parser.next() {
                        agent.receive(message, source: 0, now: clock.nowNanos())
                    }
                } catch {
                    agent.streamFailed(error)
                    reconnect(socket, agent)
                    return
                }
                continue
            }
            if read == .wouldBlock { return }
            return reconnect(socket, agent)
        }
    }

    /// SIP over WebSocket: bytes through the link; each WebSocket message is one whole SIP message, parsed as a
    /// datagram is (no stream framing, Content-Length optional). A refused Upgrade fails the connection for good,
    /// as a refused TLS certificate does; a close from the proxy is counted by its code and the agent reconnects,
    /// as it does when a TCP stream ends.
    private func readWebSocket(_ socket: SIPSocket, _ agent: SIPUserAgent) {
        while true {
            let read = socket.stream.read(into: buffers.scratch.baseAddress!, count: buffers.scratch.count)
            var ended: SIPWebSocketLink.Ending?
            var outcomes: [SIPWebSocketLink.Outcome] = []
            switch read {
            case .bytes(let n):
                outcomes = socket.webSocket?.receive(UnsafeRawBufferPointer(rebasing: buffers.scratch[..<n])) ?? []
            case .wouldBlock: return
            default: ended = socket.webSocket?.transportClosed()
            }
            for outcome in outcomes {
                switch outcome {
                case .opened: agent.report(.transportReady(at: clock.nowNanos()))
                case .message(let bytes): agent.receive(datagram: bytes, source: 0, now: clock.nowNanos())
                case .closed(let report): ended = report
                }
            }
            // Frames the agent's answers made, pongs, a close echo.
            if socket.moveFramed(), !socket.wantsWrite {
                socket.wantsWrite = true
                thread.modify(socket.fd, events: CLINUX_EPOLLIN | CLINUX_EPOLLOUT, handler: handlerID)
            }
            guard let ended else {
                if case .bytes = read { continue }
                return reconnect(socket, agent)
            }
            if ended.refused { return handshakeFailed(socket, agent, cause: ended.cause) }
            if ended.counted { agent.counters.transportFailures[ended.cause, default: 0] += 1 }
            return reconnect(socket, agent)
        }
    }

    /// Drives a TLS handshake one step, polling only the way OpenSSL waits; once it is over, the bytes queued
    /// meanwhile go out.
    private func stepHandshake(_ socket: SIPSocket, _ agent: SIPUserAgent) {
        guard let tls = socket.stream.tls else { return }
        switch cssl_handshake_step(tls) {
        case 1:
            socket.handshaking = false
            let resumed = socket.stream.tls.map(TLSSavedSession.wasResumed) ?? false
            agent.counters.tlsHandshakes[resumed ? "resumed" : "full", default: 0] += 1
            agent.report(.flow(.tlsHandshake(resumed: resumed)))
            // Over WSS the WebSocket Upgrade follows; its answer is the connection's readiness.
            if socket.webSocket == nil { agent.report(.transportReady(at: clock.nowNanos())) }
            let left = socket.flush()
            socket.wantsWrite = left
            thread.modify(socket.fd, events: left ? CLINUX_EPOLLIN | CLINUX_EPOLLOUT : CLINUX_EPOLLIN,
                          handler: handlerID)
        case 2:
            // Still polled for writes while the connect is under way, so its completion is noted when it comes.
            thread.modify(socket.fd, events: socket.connected ? CLINUX_EPOLLIN : CLINUX_EPOLLIN | CLINUX_EPOLLOUT,
                          handler: handlerID)
        case 3:
            thread.modify(socket.fd, events: CLINUX_EPOLLIN | CLINUX_EPOLLOUT, handler: handlerID)
        default:
            handshakeFailed(socket, agent)
        }
    }

    /// The handshake failed: counted by cause and the connection closed for good; connecting again would fail
    /// the same way, as fast as the proxy answers. The agent stays (its timers run out, `close` removes it).
    private func handshakeFailed(_ socket: SIPSocket, _ agent: SIPUserAgent, cause: String? = nil) {
        let verify = socket.stream.tls.map { cssl_verify_result($0) } ?? 0
        // While recovering, a handshake cut short (the proxy down or restarting) is a failed attempt, not a verdict.
        if agent.recovering, verify == 0 { return reconnect(socket, agent) }
        agent.transportFailed(cause ?? (verify != 0 ? "tls_certificate" : "tls_handshake"))
        sockets[socket.agent] = nil
        byFD[socket.fd] = nil
        thread.remove(socket.fd)
        socket.stream.close()
        flush(socket.agent)  // its event (`transportFailed`) is told now, whoever drove the handshake
    }

    /// A stream that broke framing or closed: a new connection to the proxy for the same agent. With `reconnect:
    /// none` its next REGISTER refresh binds the new contact port, as a phone does after a network change; with a
    /// recovery policy it re-REGISTERs on it at once, and a connection lost again before that REGISTER's 200 (the
    /// proxy refusing or resetting it) waits the back-off instead (the tick opens the next).
    private func reconnect(_ socket: SIPSocket, _ agent: SIPUserAgent) {
        keepTLSSession(socket, of: agent)
        byFD[socket.fd] = nil
        thread.remove(socket.fd)
        socket.stream.close()
        let now = clock.nowNanos()
        guard agent.connectionLost(now: now) else {
            sockets[socket.agent] = nil
            timing.deadlines.note(socket.agent, agent.nextDeadline)
            armTicker()
            return
        }
        openAgain(socket.agent, agent, now: now)
    }

    /// Opens agent `id`'s next connection; under a recovery policy the REGISTER goes on it at once (queued until
    /// it can carry it), and a connection that cannot even be opened waits the back-off.
    private func openAgain(_ id: Int, _ agent: SIPUserAgent, now: UInt64) {
        let seed = UInt64(id) << 32 | UInt64(books.opened)
        guard case .success(let fresh) = openSocket(id, agent.transport, seed: seed, user: agent.account.user) else {
            sockets[id] = nil
            if agent.reconnect.recovers {
                agent.connectFailed(now: now)
                timing.deadlines.note(id, agent.nextDeadline)
                armTicker()
            }
            return
        }
        agent.setLocalPort(Int(clinux_local_port(fresh.fd)))
        install(fresh, agent)
        if agent.reconnect.recovers, sockets[id] === fresh { agent.reregister(now: now, reconnected: true) }
    }

    /// A recovery's back-off is over: a new connection and its REGISTER, or (the REGISTER was refused on a
    /// connection still open) another REGISTER on it.
    private func retryFlow(_ id: Int, _ agent: SIPUserAgent, now: UInt64) {
        if sockets[id] != nil {
            agent.reregister(now: now, reconnected: false)
        } else {
            openAgain(id, agent, now: now)
        }
        flush(id)
    }

    /// The ticker fired (and is disarmed): the held datagrams and the agents that are due, then the next arming.
    private func tick() {
        timing.armedFor = .max
        let now = clock.nowNanos()
        if !held.isEmpty { releaseHeld(now: now) }
        var due = timing.takeDueList()
        timing.deadlines.popDue(now, into: &due)
        for id in due {
            guard let agent = agents[id] else { continue }
            if agent.flowRetryDue(now) { retryFlow(id, agent, now: now) }
            guard let next = agent.nextDeadline, next <= now else {
                timing.deadlines.note(id, agent.nextDeadline)
                continue
            }
            agent.advance(to: now)
            flush(id)
        }
        timing.putBack(due)
        armTicker()
    }

    /// Arms the ticker for the earliest agent deadline or held datagram (`PoolTiming.arm`).
    func armTicker() { timing.arm(held.isEmpty ? .max : held.earliestDue, clock: clock) }

    private func clockMoved() {  // by a test's hand: the ticker's delay was planned on the old time
        timing.armedFor = .max
        armTicker()
    }

    /// Sends and reads the held datagrams that are due, in the order they were held; those of a closed agent go.
    private func releaseHeld(now: UInt64) {
        let (sends, reads) = held.takeDue(now)
        for item in sends {
            guard let socket = sockets[item.agent] else {
                sendHeldShared(item.agent, item.bytes, to: item.address)
                continue
            }
            if !socket.sendDatagram(item.bytes, to: item.address) { books.sendErrors += 1 }
        }
        for item in reads {
            guard let agent = agents[item.agent] else { continue }
            agent.receive(datagram: item.bytes, source: item.source, now: now)
            flush(item.agent)
        }
    }
}
