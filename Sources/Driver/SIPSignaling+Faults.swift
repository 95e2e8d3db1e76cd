import Chaos
import Metrics
import SIPClient

/// The run's SIP faults as the worker applies them (decisions are Chaos's: `FaultSchedule.sipMessageDecision`,
/// `sipWakeDecision`). Message loss and delay act through the pool's datagram filter, on the device's UDP socket;
/// a late wake puts the wake REGISTER off on the wheel (`TimerEvent.sipWake`); a lost REGISTER makes the filter
/// drop that device's REGISTERs until its agent closes. Each fault that acts is counted (`faults.<kind>`) and
/// logged in faults.csv against the device's call, so a call it made fail is attributed to it.
struct SIPChaos {
    /// Whether the windows hold message faults (the filter is installed only then, or for a lost REGISTER).
    var messages = false
    /// Each device's datagrams so far (sent and read): the draw key of the next one.
    var datagrams: [Int: UInt64] = [:]
    /// Devices whose wake REGISTERs vanish until their agent closes.
    var registerLost: Set<Int> = []
}

extension SIPSignaling {
    /// Installs the datagram filter when a window has SIP faults; call once the pool exists.
    func installFaults() {
        let schedule = faults.schedule
        chaos.messages = schedule.hasSIPMessageFaults
        guard chaos.messages || schedule.windows.contains(where: { $0.sip != nil }) else { return }
        pool.datagramFilter = { [unowned self] agent, sending, label in datagramFate(agent, sending, label) }
    }

    /// The fate of one datagram of `agent`'s device: a lost wake REGISTER, else the message faults' decision.
    func datagramFate(_ agent: Int, _ sending: Bool, _ label: String) -> SIPDatagramFate {
        guard let local = agents.device[agent], !books.sealed else { return .pass }
        let now = self.now
        if sending, label == "REGISTER", chaos.registerLost.contains(local) {
            books.count(.fault(LostRegisterFault.lost + ".datagrams"), at: now)
            return .drop
        }
        guard chaos.messages, let since = faults.sinceLoad() else { return .pass }
        let device = table.devices[local].identity.index
        let seq = chaos.datagrams[local, default: 0] + 1
        chaos.datagrams[local] = seq
        guard let (action, note) = faults.schedule.sipMessageDecision(
            SIPDatagram(label: label, sending: sending), device: device, seq: seq, sinceLoad: since,
            flow: table.flowName(local)) else { return .pass }
        log(note, local: local, seq: seq, since: since, now: now)
        books.count(.sipMessageFault(note.kind, sending: sending, label: label), at: now)
        switch action {
        case .drop: return .drop
        case .delay(let nanos): return .delay(nanos: nanos)
        }
    }

    /// The wake-up fault for `local`'s wake now (it reported a push and is about to REGISTER): true when the
    /// REGISTER is put off (a late wake; `wakeDue` sends it), false to REGISTER now (a lost REGISTER marks the
    /// device so the filter drops it).
    func wakeFault(_ local: Int) -> Bool {
        guard let since = faults.sinceLoad(), let planned = table.faultTime(local),
              let part = table.faultSubject(local), let flow = table.flowName(local) else { return false }
        let device = table.devices[local].identity.index
        guard let (action, note) = faults.schedule.sipWakeDecision(device: device, subject: part.subject,
                                                                   plannedSinceLoad: planned, flow: flow)
        else { return false }
        log(note, local: local, seq: 0, since: since, now: now)
        switch action {
        case .registerLost:
            chaos.registerLost.insert(local)
            return false
        case .late(let nanos):
            table.schedule(.sipWake(local: local), now + nanos)
            return true
        }
    }

    private func log(_ note: FaultNote, local: Int, seq: UInt64, since: UInt64, now: UInt64) {
        let part = table.faultSubject(local)
        books.count(.fault(note.kind), at: now)
        faults.log.add(.init(sinceLoadNanos: since, window: note.window, kind: note.kind,
                             device: table.devices[local].identity.index, seq: seq, call: part?.call ?? -1,
                             role: part?.role ?? -1))
    }
}
