import Faults
import Metrics
import WebSocket
import WebSocketClient

/// Socket faults: a drop ends the device's socket through the same path as a loss (the lifecycle counts it lost
/// and reconnects after the device's seeded backoff), a stall pauses reading on that socket for its drawn time.
/// Every socket a fault ended, drops and storms alike, is also counted as callstorm's (`socket.lost.injected`,
/// `socket.closed.server.injected`), so the books show which losses the target caused.
extension DeviceSockets {
    /// Plans the socket faults of this worker's devices; call on the loop when the load starts.
    func planFaults(loadStart: UInt64) {
        let schedule = faults.schedule
        guard !schedule.isEmpty else { return }
        plan.storms = schedule.windows.contains { SocketStormFault(window: $0) != nil }
        guard schedule.hasSocketFaults else { return }
        var pending: [(at: UInt64, local: Int, event: SocketFaultEvent)] = []
        for local in table.devices.devices.indices {
            for event in schedule.socketFaults(device: table.devices[local].identity.index) {
                pending.append((loadStart + event.atNanos, local, event))
            }
        }
        pending.sort { ($0.at, $0.local) < ($1.at, $1.local) }
        plan.pending = pending
        if let first = pending.first { self.schedule(.fault(.due), at: first.at) }
    }

    func faultFired(_ timer: SocketFaultTimer, now: UInt64) {
        switch timer {
        case .due:
            while plan.next < plan.pending.count, plan.pending[plan.next].at <= now {
                let (_, local, event) = plan.pending[plan.next]
                plan.next += 1
                applyFault(event, local: local, now: now)
            }
            if plan.next < plan.pending.count {
                schedule(.fault(.due), at: plan.pending[plan.next].at)
            }
        case .resume(let id):
            guard plan.stalled.remove(id) != nil else { return }
            pool.setReading(id, paused: false)
        }
    }

    /// Acts when the device's socket is open now (and, for a window with `flows` or a fault with `roles`, the
    /// device is in such a call, in such a role): only then is the fault a row of faults.csv, with that call.
    private func applyFault(_ event: SocketFaultEvent, local: Int, now: UInt64) {
        let part = table.faultSubject(local)
        let role = part.flatMap { table.calls[$0.call]?.flow.roles[$0.role] }
        guard !books.sealed, let id = links.socket[local], phase(local) == .open,
              faults.schedule.applies(event, flow: table.flowName(local), role: role)
        else { return }
        switch event.action {
        case .drop:
            break
        case .stall(let nanos):
            guard !plan.stalled.contains(id) else { return }
            pool.setReading(id, paused: true)
            plan.stalled.insert(id)
            schedule(.fault(.resume(socket: id)), at: now + nanos)
        }
        books.count(.fault(event.note.kind), at: now)
        if let call = table.devices[local].callID {
            books.tracer?.fault(call: call, kind: event.note.kind, window: event.note.window, now: now)
        }
        faults.log.add(.init(sinceLoadNanos: faults.sinceLoad() ?? event.atNanos, window: event.note.window,
                             kind: event.note.kind, device: table.devices[local].identity.index, seq: 0))
        if case .drop(let code) = event.action {
            // Marked first: the pool reports an abort's end at once, inside `drop`.
            plan.dropping.insert(id)
            drop(local, code: code.map { CloseCode($0) })
        }
    }

    /// Called as a device's open socket ends, before the lifecycle books it: counts the end as callstorm's when
    /// a drop fault caused it, or a storm that ran after the socket began connecting (the storm ends every
    /// socket the target holds; one still in its handshake then may be counted as the storm's too).
    func attributeEnd(_ id: UInt64, _ report: CloseReport, local: Int, now: UInt64) {
        plan.stalled.remove(id)
        let dropped = plan.dropping.remove(id) != nil
        guard phase(local) == .open || phase(local) == .closing else { return }
        if dropped {
            books.count(.socketLostInjected, at: now)
            return
        }
        guard plan.storms else { return }
        let began = lifecycle[local].openStarted
        guard faults.log.stormInstants.contains(where: { faults.loadStart + $0 >= began }) else { return }
        switch report.cause {
        case .transport: books.count(.socketLostInjected, at: now)
        case .remote: books.count(.socketClosedServerInjected, at: now)
        default: break
        }
    }
}
