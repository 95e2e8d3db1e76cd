import CLinux
import SIP
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// `device.sockets: shared` (`socketsShared`): the pool's UDP agents on one socket (`SharedDatagramSocket`), each
/// told apart by the `csdev` parameter of its Contact and Via (`SharedDemux`). The per-device sockets' path, and the
/// stream transports', are untouched; sleeping devices keep their own sockets (the wake path closes them).
extension SIPClientPool {
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
    /// queued sent with one `sendmmsg`. Up to 64 datagrams a wake, as a per-device socket reads; a short batch says
    /// the socket is drained.
    func readShared(_ socket: SharedDatagramSocket) {
        for _ in 0..<(64 / socket.batch.capacity) {
            guard case .bytes(let count) = SystemCall.receiveDatagrams(socket.fd, into: socket.batch) else { return }
            socket.startBatch()
            socket.reads.calls += 1
            socket.reads.datagrams += count
            let now = clock.nowNanos()
            for i in 0..<count { readShared(i, socket, now: now) }
            socket.batching = true
            for id in socket.touched {
                guard let agent = agents[id] else { continue }
                flush(id, agent, nil)
            }
            socket.batching = false
            socket.sends.flush()
            books.sendErrors += socket.sends.failures - socket.failuresBooked
            socket.failuresBooked = socket.sends.failures
            if count < socket.batch.capacity { return }
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
        socket.touch(id)
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
