import CLinux
import Determinism
import EventPolling
import SIP
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// `device.sockets: shared` (`socketsShared`): the pool's UDP agents on one socket (`SharedDatagramSocket`), each
/// told apart by the `csdev` parameter of its Contact and Via (`SharedDemux`). The per-device sockets' path, and the
/// stream transports', are untouched; sleeping devices keep their own sockets (the wake path closes them).
extension SIPClientPool {
    public var socketsShared: Bool {
        get { sharing.on }
        set { sharing.on = newValue }
    }

    var shared: SharedDatagramSocket? { sharing.socket }

    /// `add` of a UDP agent on the shared socket, opened (and put on the event thread) with the first.
    func addShared(account: SIPAccount, seed: UInt64) -> Result<Int, SIPClientError> {
        let socket: SharedDatagramSocket
        if let open = shared {
            socket = open
        } else {
            switch SharedDatagramSocket.open(host: "127.0.0.1") {
            case .success(let opened): socket = opened
            case .failure(let error): return .failure(error)
            }
            sharing.socket = socket
            socket.window.nanos = sharing.coalesceNanos
            socket.window.oneShot = socket.window.nanos > 0
            thread.add(socket.fd, events: socket.window.interest, handler: handlerID)
        }
        let id = books.opened + 1
        books.opened = id
        agents[id] = SIPUserAgent(account: account, transport: .udp, localPort: socket.port, seed: seed, demux: id)
        socket.carry(id)
        return .success(id)
    }

    /// Drains the shared socket, each `recvmmsg` batch stage by stage (`readSharedBatch`: parse all, then the
    /// agents, then their sends queued, then their events told, then one `sendmmsg`). Up to 64 datagrams a wake,
    /// as a per-device socket reads. After a short batch the socket's window (`SharedReadWindow`) decides: watched
    /// again, or left alone for a moment so the next read (the window's timer's) carries more. Runs on an epoll
    /// wake-up and at a window's end.
    func readShared(_ socket: SharedDatagramSocket) {
        for _ in 0..<(64 / socket.batch.capacity) {
            let count = readSharedBatch(socket)
            switch socket.window.step(afterReading: count, capacity: socket.batch.capacity,
                                      now: clinux_monotonic_ns()) {
            case .readAgain: continue
            case .watch: return watchShared(socket, true)
            case .wait(let until):
                watchShared(socket, false)
                return sharedWindowTimer(socket).arm(atMonotonicNanos: until)
            }
        }
        watchShared(socket, true)  // 64 read and more waiting: the next turn reads on, after the timers
    }

    /// The shared socket reported readable by the event thread's wait: a one-shot interest is out already.
    func sharedReady(_ socket: SharedDatagramSocket) {
        if socket.window.oneShot { socket.window.watching = false }
        readShared(socket)
    }

    /// Puts the shared socket in the event thread's interest, or takes it out for a window (an `epoll_ctl` only
    /// on a change: while reads stay short the window's timer alone reads it, window after window). With a
    /// one-shot interest the kernel took it out already when it reported it, so only the watch costs a call.
    private func watchShared(_ socket: SharedDatagramSocket, _ watch: Bool) {
        guard socket.window.watching != watch else { return }
        socket.window.watching = watch
        if watch { socket.window.oneShot = socket.window.nanos > 0 }
        thread.modify(socket.fd, events: watch ? socket.window.interest : 0, handler: handlerID)
    }

    /// The timer that ends the shared socket's windows, made with its first.
    private func sharedWindowTimer(_ socket: SharedDatagramSocket) -> EventTimer {
        if let timer = socket.window.timer { return timer }
        let timer = EventTimer(on: thread) { [unowned self, unowned socket] in readShared(socket) }
        socket.window.timer = timer
        return timer
    }

    /// Runs `command` on agent `id` with the current time (register, invite, answer, …), then sends what it
    /// queued and reports its events: its own events happen now, not at the arrival of a datagram being told.
    public func perform(_ id: Int, _ command: (SIPUserAgent, UInt64) -> Void) {
        guard let agent = agents[id] else { return }
        withoutEventTime {
            let now = clock.nowNanos()
            sharing.commandAt = now
            command(agent, now)
            flush(id)
        }
    }

    /// Runs `body` (a command, perhaps from an event's handler: its own events happen now) with no `eventTime`.
    func withoutEventTime(_ body: () -> Void) {
        let told = sharing.eventTime
        sharing.eventTime = nil
        body()
        sharing.eventTime = told
    }

    /// The kernel receive time of the datagram (the last of its agent's in the batch) whose events are being told.
    public var eventTime: UInt64? { sharing.eventTime }

    /// `device.coalesce`: the shared socket's window after a read that carried little (0: none).
    public var sharedCoalesceNanos: UInt64 {
        get { sharing.coalesceNanos }
        set {
            sharing.coalesceNanos = newValue
            shared?.window.nanos = newValue
        }
    }

    /// Agent `id`'s queued datagrams on the shared socket, into its `sendmmsg` batch (`sendShared(_:to:_:)`); the
    /// chaos filter decides each as on a per-device socket.
    func sendShared(_ outbox: [(bytes: [UInt8], to: SIPUserAgent.Destination)], _ id: Int,
                    _ socket: SharedDatagramSocket) {
        for (bytes, destination) in outbox {
            let address: sockaddr_in
            switch destination {
            case .proxy: address = proxy.address
            case .source(let handle): address = sources.address(handle)
            }
            switch held.filter?(id, true, SIPStartLine.label(bytes), bytes) ?? .pass {
            case .pass: sendShared(bytes, to: address, socket)
            case .drop: continue
            case .delay(let nanos): held.sends.append((clock.nowNanos() + nanos, id, bytes, address))
            }
        }
    }

    /// Into the socket's `sendmmsg` batch: the read under way sends it after its batch; outside a read (a
    /// command, a timer) the first send of a turn posts a flush to the turn's end, so what the turn's commands and
    /// timers send goes out in one `sendmmsg` too, microseconds later than a `sendto` each would have.
    private func sendShared(_ bytes: [UInt8], to address: sockaddr_in, _ socket: SharedDatagramSocket) {
        bytes.withUnsafeBytes { b in socket.sends.append(socket.fd, b, to: address) }
        guard socket.flushBy == .nobody else { return }
        socket.flushBy = .posted
        thread.post { [weak self, weak socket] in
            guard let self, let socket, socket.flushBy == .posted else { return }
            flushSharedSends(socket)
        }
    }

    /// Closes the shared socket (`closeAll`), once what the last commands sent has gone.
    func closeShared() {
        guard let shared else { return }
        flushSharedSends(shared)
        shared.close()
    }

    /// Sends what waits in the socket's batch (one `sendmmsg`), its failures into the pool's books.
    func flushSharedSends(_ socket: SharedDatagramSocket) {
        socket.flushBy = .nobody
        guard socket.sends.pending > 0 else { return }
        socket.sends.flush()
        books.sendErrors += socket.sends.failures - socket.failuresBooked
        socket.failuresBooked = socket.sends.failures
    }

    /// A held datagram of agent `id` that has no socket of its own: sent on the shared one while the agent lives.
    func sendHeldShared(_ id: Int, _ bytes: [UInt8], to address: sockaddr_in) {
        guard let shared, shared.carries(id), agents[id] != nil else { return }
        sendShared(bytes, to: address, shared)
    }
}

/// The pool's shared-socket mode: `socketsShared`, the socket (opened with the first agent on it), its window's
/// length for sockets opened from now on, and the arrival of the datagram whose agent's events are being told.
struct SharedMode {
    var on = false
    var socket: SharedDatagramSocket?
    var coalesceNanos = SharedReadWindow.defaultNanos
    var eventTime: UInt64?
    /// The time the last command ran (`perform`): a datagram read after it arrived no earlier, as the Driver sees
    /// it. One that came in while the Driver was starting an action (a BYE in the socket while the resume timer
    /// fired) is told at this time, not before the action began: told at its stamp, the action it ends came out
    /// with a negative duration (an arithmetic trap in `RunBooks.finished`, seen under valgrind at load).
    var commandAt: UInt64 = 0
}
