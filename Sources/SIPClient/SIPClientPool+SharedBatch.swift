import CLinux
import Determinism
import SIP
import SystemCalls

/// One read of the shared socket, handled stage by stage (issue 33; docs/SIP.md, "A read stage by stage"): every
/// datagram of the batch demultiplexed and parsed, then each message to its agent (transactions, dialogs,
/// sessions), then what every touched agent queued into the batch's `sendmmsg`, then every touched agent's events
/// told to the owner (the Driver's per-event path), then one `sendmmsg`. Each stage's code and data stay hot over
/// the batch, where one datagram's whole path (parser, agent, the Driver's event, recorder, history, serialiser)
/// used to run before the next one started cold: at ~24,000 instructions' worth of instruction-cache misses a call
/// (docs/SIP.md, "Why an instruction costs callstorm more cycles than SIPp") the path is larger than the L1i.
///
/// What an agent sees is what it saw before, in the same order: its datagrams in arrival order, parsed with its
/// own string cache (which only interns: parsing earlier reads the same values), its events after all its
/// datagrams of the batch, told at the last one's kernel receive time (`eventTime`).
extension SIPClientPool {
    /// One `recvmmsg` of the shared socket handled: how many datagrams it carried (0: none, or it failed).
    func readSharedBatch(_ socket: SharedDatagramSocket) -> Int {
        guard case .bytes(let count) = SystemCall.receiveDatagrams(socket.fd, into: socket.batch) else { return 0 }
        socket.startBatch()
        socket.reads.calls += 1
        socket.reads.datagrams += count
        // Arrival times from the kernel's stamps on the real clock; a test's clock has no relation to them. The
        // real-time clock first: time lost between the two reads (a preempted thread, valgrind's thread switch at
        // the system call) then makes an arrival later, never earlier than the datagram's, so never before the
        // command that sent what it answers (an action's duration came out negative under valgrind at load).
        let stamped = clock is MonotonicClock
        let realNow = stamped ? clinux_realtime_ns() : 0
        let now = clock.nowNanos()
        let floor = max(socket.window.readAt, sharing.commandAt)
        socket.window.readAt = now
        socket.flushBy = .read
        for i in 0..<count {
            let stamp = socket.batch.receivedAt(i)
            let arrival = stamped ? ReceiveStamp.arrival(stamp: stamp, realNow: realNow, now: now, floor: floor) : now
            parseShared(i, socket, arrival: arrival)
        }
        deliverParsed(socket)
        for id in socket.touched {
            guard let agent = agents[id] else { continue }
            timing.deadlines.note(id, agent.nextDeadline)
            agent.drainOutbox { outbox in sendShared(outbox, id, socket) }
        }
        for id in socket.touched {
            guard let agent = agents[id] else { continue }
            sharing.eventTime = stamped ? socket.arrival(id) : nil  // the time its events are told at
            tell(id, agent)
        }
        sharing.eventTime = nil
        armTicker()
        flushSharedSends(socket)
        return count
    }

    /// The first stage for datagram `i` of the batch: the agent it names, parsed with that agent's string cache
    /// into `socket.parsed`. One that names no live agent of this socket is counted and dropped. With a chaos
    /// filter the datagram goes to its agent at once, as on the agent's own socket (the filter may hold it back).
    private func parseShared(_ i: Int, _ socket: SharedDatagramSocket, arrival: UInt64) {
        let raw = socket.batch[i]
        guard let id = SharedDemux.agent(in: raw), socket.carries(id), let agent = agents[id] else {
            socket.stray += 1
            return
        }
        let handle = sources.remember(socket.batch.source(i))
        socket.touch(id, arrival: arrival)
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        guard let filter = held.filter else {
            let message = agent.parse(datagram: bytes)
            return socket.parsed.append(SharedDatagram(agent: id, source: handle, arrival: arrival, message: message))
        }
        let datagram = Array(bytes)
        switch filter(id, false, SIPStartLine.label(datagram), datagram) {
        case .pass: agent.receive(datagram: datagram, source: handle, now: arrival)
        case .drop: return
        case .delay(let nanos): held.reads.append((arrival + nanos, id, datagram, handle))
        }
    }

    /// The second stage: each parsed datagram to its agent, in arrival order (nothing is told or sent yet).
    private func deliverParsed(_ socket: SharedDatagramSocket) {
        guard !socket.parsed.isEmpty else { return }
        var parsed: [SharedDatagram] = []
        swap(&parsed, &socket.parsed)  // iterated here, not through the socket (which would retain its buffer)
        for datagram in parsed {
            agents[datagram.agent]?.receive(parsed: datagram.message, source: datagram.source, now: datagram.arrival)
        }
        AgentMail.empty(&parsed)
        swap(&parsed, &socket.parsed)
    }
}
