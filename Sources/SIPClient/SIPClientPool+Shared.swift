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
            thread.add(socket.fd, events: CLINUX_EPOLLIN, handler: handlerID)
        }
        let id = books.opened + 1
        books.opened = id
        agents[id] = SIPUserAgent(account: account, transport: .udp, localPort: socket.port, seed: seed, demux: id)
        socket.carry(id)
        return .success(id)
    }

    /// Drains the shared socket stage by stage: each `recvmmsg` batch's datagrams handed to their agents (no flush
    /// yet), then each agent the batch touched flushed once (its sends, then its events), then what they all
    /// queued sent with one `sendmmsg`. Up to 64 datagrams a wake, as a per-device socket reads. After a short
    /// batch the socket's window (`SharedReadWindow`) decides: watched again, or left alone for a moment so the
    /// next read (the window's timer's) carries more. Runs on an epoll wake-up and at a window's end.
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

    /// One `recvmmsg` of the shared socket handled: how many datagrams it carried (0: none, or it failed).
    private func readSharedBatch(_ socket: SharedDatagramSocket) -> Int {
        guard case .bytes(let count) = SystemCall.receiveDatagrams(socket.fd, into: socket.batch) else { return 0 }
        socket.startBatch()
        socket.reads.calls += 1
        socket.reads.datagrams += count
        // Arrival times from the kernel's stamps on the real clock; a test's clock has no relation to them.
        let stamped = clock is MonotonicClock
        let now = clock.nowNanos(), realNow = stamped ? clinux_realtime_ns() : 0
        let floor = socket.window.readAt
        socket.window.readAt = now
        for i in 0..<count {
            let stamp = socket.batch.receivedAt(i)
            let arrival = stamped ? ReceiveStamp.arrival(stamp: stamp, realNow: realNow, now: now, floor: floor) : now
            readShared(i, socket, now: arrival)
        }
        socket.batching = true
        for id in socket.touched {
            guard let agent = agents[id] else { continue }
            sharing.eventTime = stamped ? socket.arrival(id) : nil  // the time its events are told at
            flush(id, agent, nil)
        }
        sharing.eventTime = nil
        socket.batching = false
        socket.sends.flush()
        books.sendErrors += socket.sends.failures - socket.failuresBooked
        socket.failuresBooked = socket.sends.failures
        return count
    }

    /// Puts the shared socket in the event thread's interest, or takes it out for a window (one `epoll_ctl` each
    /// way, only on a change: while reads stay short the window's timer alone reads it, window after window).
    private func watchShared(_ socket: SharedDatagramSocket, _ watch: Bool) {
        guard socket.window.watching != watch else { return }
        socket.window.watching = watch
        thread.modify(socket.fd, events: watch ? CLINUX_EPOLLIN : 0, handler: handlerID)
    }

    /// The timer that ends the shared socket's windows, made with its first.
    private func sharedWindowTimer(_ socket: SharedDatagramSocket) -> EventTimer {
        if let timer = socket.window.timer { return timer }
        let timer = EventTimer(on: thread) { [unowned self, unowned socket] in readShared(socket) }
        socket.window.timer = timer
        return timer
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

    /// Datagram `i` of the batch to the agent it names; one that names no live agent of this socket is counted
    /// and dropped. The chaos filter sees it as the agent's, as on the agent's own socket.
    private func readShared(_ i: Int, _ socket: SharedDatagramSocket, now: UInt64) {
        let raw = socket.batch[i]
        guard let id = SharedDemux.agent(in: raw), socket.carries(id), let agent = agents[id] else {
            socket.stray += 1
            return
        }
        let handle = sources.remember(socket.batch.source(i))
        socket.touch(id, arrival: now)
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        guard let filter = held.filter else { return agent.receive(datagram: bytes, source: handle, now: now) }
        let datagram = Array(bytes)
        switch filter(id, false, SIPStartLine.label(datagram), datagram) {
        case .pass: agent.receive(datagram: datagram, source: handle, now: now)
        case .drop: return
        case .delay(let nanos): held.reads.append((now + nanos, id, datagram, handle))
        }
    }

    /// Agent `id`'s queued datagrams on the shared socket: into the batch's `sendmmsg` during a read, else out at
    /// once (a command, a timer); the chaos filter decides each as on a per-device socket.
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

    private func sendShared(_ bytes: [UInt8], to address: sockaddr_in, _ socket: SharedDatagramSocket) {
        bytes.withUnsafeBytes { b in
            if socket.batching {
                socket.sends.append(socket.fd, b, to: address)
            } else if SystemCall.sendDatagram(socket.fd, b, to: address) != .bytes(b.count) {
                books.sendErrors += 1
            }
        }
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
}
