import Chaos
import Metrics
import WebSocket

/// A timer of the socket faults: the next planned fault is due, or a stalled socket reads again.
enum SocketFaultTimer {
    case due
    case resume(socket: UInt64)
}

/// A worker's socket faults: every planned fault of its devices in time order (drawn in Chaos before the load
/// starts), the sockets a drop is ending and the sockets stalled now. Owned by the worker's queue.
struct SocketFaultPlan {
    var pending: [(at: UInt64, local: Int, event: SocketFaultEvent)] = []
    var next = 0
    /// Pool ids of sockets a drop fault is ending: their end is callstorm's doing.
    var dropping: Set<UInt64> = []
    var stalled: Set<UInt64> = []
    /// Whether the scenario has storms (only then is a socket's end checked against them).
    var storms = false
}

/// Socket faults applied on the worker: a drop ends the device's socket through the same path as a loss (the
/// lifecycle counts it lost and reconnects after the device's seeded backoff), a stall pauses reading on that
/// socket for its drawn time. Every socket a fault ended, drops and storms alike, is also counted as callstorm's
/// (`socket.lost.injected`, `socket.closed.server.injected`), so the books show which losses the target caused.
extension Worker {
    private var socketPlan: SocketFaultPlan {
        get { faultState.socketPlan }
        _modify { yield &faultState.socketPlan }
    }

    /// Plans the socket faults of this worker's devices; call on the queue when the load starts.
    func planSocketFaults() {
        guard sockets != nil, !faults.isEmpty else { return }
        socketPlan.storms = faults.windows.contains { SocketStormFault(window: $0) != nil }
        guard faults.hasSocketFaults else { return }
        var pending: [(at: UInt64, local: Int, event: SocketFaultEvent)] = []
        for local in devices.devices.indices {
            for event in faults.socketFaults(device: devices[local].identity.index) {
                pending.append((loadStart + event.atNanos, local, event))
            }
        }
        pending.sort { ($0.at, $0.local) < ($1.at, $1.local) }
        socketPlan.pending = pending
        if let first = pending.first { schedule(.socketFault(.due), at: first.at) }
    }

    func socketFaultFired(_ timer: SocketFaultTimer, now: UInt64) {
        switch timer {
        case .due:
            while socketPlan.next < socketPlan.pending.count, socketPlan.pending[socketPlan.next].at <= now {
                let (_, local, event) = socketPlan.pending[socketPlan.next]
                socketPlan.next += 1
                applySocketFault(event, local: local, now: now)
            }
            if socketPlan.next < socketPlan.pending.count {
                schedule(.socketFault(.due), at: socketPlan.pending[socketPlan.next].at)
            }
        case .resume(let id):
            guard socketPlan.stalled.remove(id) != nil else { return }
            sockets?.pool.setReading(id, paused: false)
        }
    }

    /// Acts when the device's socket is open now (and, for a window with `flows` or a fault with `roles`, the
    /// device is in such a call, in such a role): only then is the fault a row of faults.csv, with that call.
    private func applySocketFault(_ event: SocketFaultEvent, local: Int, now: UInt64) {
        let part = faultSubject(local)
        let role = part.flatMap { calls[$0.call]?.flow.roles[$0.role] }
        guard !finished, let sockets, let id = sockets.socket[local], socketPhase(local) == .open,
              faults.applies(event, flow: devices[local].callID.flatMap { calls[$0]?.flow.name }, role: role)
        else { return }
        switch event.action {
        case .drop:
            break
        case .stall(let nanos):
            guard !socketPlan.stalled.contains(id) else { return }
            sockets.pool.setReading(id, paused: true)
            socketPlan.stalled.insert(id)
            schedule(.socketFault(.resume(socket: id)), at: now + nanos)
        }
        recorder.count(.fault(event.note.kind), atNanos: now)
        faultLog.add(.init(sinceLoadNanos: sinceLoad() ?? event.atNanos, window: event.note.window,
                           kind: event.note.kind, device: devices[local].identity.index, seq: 0))
        if case .drop(let code) = event.action {
            // Marked first: the pool reports an abort's end at once, inside `dropSocket`.
            socketPlan.dropping.insert(id)
            dropSocket(local, code: code.map { CloseCode($0) })
        }
    }

    /// Called as a device's open socket ends, before the lifecycle books it: counts the end as callstorm's when
    /// a drop fault caused it, or a storm that ran after the socket began connecting (the storm ends every
    /// socket the target holds; one still in its handshake then may be counted as the storm's too).
    func attributeSocketEnd(_ id: UInt64, _ report: CloseReport, local: Int, now: UInt64) {
        socketPlan.stalled.remove(id)
        let dropped = socketPlan.dropping.remove(id) != nil
        guard socketPhase(local) == .open || socketPhase(local) == .closing else { return }
        if dropped {
            recorder.count(.socketLostInjected, atNanos: now)
            return
        }
        guard socketPlan.storms, let sockets else { return }
        let began = sockets.lifecycle[local].openStarted
        guard faultLog.stormInstants.contains(where: { loadStart + $0 >= began }) else { return }
        switch report.cause {
        case .transport: recorder.count(.socketLostInjected, atNanos: now)
        case .remote: recorder.count(.socketClosedServerInjected, atNanos: now)
        default: break
        }
    }
}
