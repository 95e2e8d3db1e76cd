import Faults
import Metrics
import SIP
import SIPClient

/// The run's SIP faults as the worker applies them (decisions are the Faults model's:
/// `FaultSchedule.sipMessageDecision`, `sipWakeDecision`). Message loss and delay act through the pool's datagram
/// filter, on the device's UDP socket; a late wake puts the wake REGISTER off on the wheel (`SIPSignalingTimer.wake`);
/// a lost REGISTER makes the filter drop that device's REGISTERs until its agent closes. Each fault that acts is
/// counted (`faults.<kind>`) and logged in faults.csv; against the device's call only when the datagram is part of
/// it (`SIPDatagramOwner`), so a call it made fail is attributed to it and a lost REGISTER refresh during a call is
/// not. A refresh that then fails lapses the device's registration (`SIPRegistrationFaults`).
struct SIPFaultState {
    /// Whether the windows hold message faults (the filter is installed only then, or for a lost REGISTER).
    var messages = false
    /// Each device's datagrams so far (sent and read): the draw key of the next one.
    var datagrams: [Int: UInt64] = [:]
    /// Devices whose wake REGISTERs vanish until their agent closes.
    var registerLost: Set<Int> = []
    /// Devices a message fault hit a registration datagram of (not one asked for a call) since they last
    /// registered, with the fault's window: a refresh of theirs that fails lapses their registration.
    var registrationHit: [Int: String] = [:]
    /// Devices whose registration lapsed by a fault (and the window), until they register again.
    var lapsed: [Int: String] = [:]
    /// Devices re-registering after their connection broke during a target kill, with the kill's window
    /// (`SIPSignaling+Flow`).
    var reregistering: [Int: String] = [:]
}

/// Whose a SIP datagram of a device is, for attributing the faults on it: part of the device's call (its Call-ID is
/// one the call has: a leg of it, the conversation a push woke the device for or the call knows, an INVITE one of
/// its devices placed; or it is the REGISTER the call's wake or dial asked for), part of the device's own
/// registration (a refresh the agent sends by itself, its challenge and answer), or of nothing (an OPTIONS and its
/// answer, a keep-alive, a waiting call the device declined, a stray for a call already over).
enum SIPDatagramOwner: Equatable {
    case call
    case registration
    case none

    /// `ofDevicesCall`: the device's call has this Call-ID (`SIPSignaling.callExpects`). `registeringForCall`:
    /// the device's REGISTER in flight was asked for by its call (a wake, a sleeping caller's dial).
    static func of(label: String, callID: String?, registrationCallID: String?, ofDevicesCall: Bool,
                   registeringForCall: Bool) -> SIPDatagramOwner {
        guard let callID else { return .none }
        if label == "REGISTER" || callID == registrationCallID { return registeringForCall ? .call : .registration }
        return ofDevicesCall ? .call : .none
    }
}

extension SIPSignaling {
    /// Installs the datagram filter when a window has SIP faults; call once the pool exists.
    func installFaults() {
        let schedule = faults.schedule
        faultState.messages = schedule.hasSIPMessageFaults
        guard faultState.messages || schedule.windows.contains(where: { $0.sip != nil }) else { return }
        pool.datagramFilter = { [unowned self] agent, sending, label, datagram in
            datagramFate(agent, sending, label, datagram)
        }
    }

    /// The fate of one datagram of `agent`'s device: a lost wake REGISTER, else the message faults' decision.
    /// The Call-ID is read off `datagram` only once a fault acts on it, to attribute the fault (`SIPDatagramOwner`).
    func datagramFate(_ agent: Int, _ sending: Bool, _ label: String, _ datagram: [UInt8]) -> SIPDatagramFate {
        guard let local = agents.device[agent], !books.sealed else { return .pass }
        let now = self.now
        if sending, label == "REGISTER", faultState.registerLost.contains(local) {
            books.count(.fault(LostRegisterFault.lost + ".datagrams"), at: now)
            return .drop
        }
        guard faultState.messages, let since = faults.sinceLoad() else { return .pass }
        let device = table.devices[local].identity.index
        let seq = faultState.datagrams[local, default: 0] + 1
        faultState.datagrams[local] = seq
        guard let (action, note) = faults.schedule.sipMessageDecision(
            SIPDatagram(label: label, sending: sending), device: device, seq: seq, sinceLoad: since,
            flow: table.flowName(local)) else { return .pass }
        let call = table.devices[local].callID
        let callID = SIPStartLine.callID(datagram)
        let ofCall = callID.flatMap { callOf($0, on: local) }
        let owner = SIPDatagramOwner.of(label: label, callID: callID,
                                        registrationCallID: pool.agent(agent)?.registrationCallID,
                                        ofDevicesCall: ofCall != nil,
                                        registeringForCall: agents.registering[local] != nil && call != nil)
        if owner == .registration { faultState.registrationHit[local] = note.window }
        log(note, local: local, seq: seq, since: since, now: now, call: owner == .call ? ofCall ?? call : nil)
        books.count(.sipMessageFault(note.kind, sending: sending, label: label), at: now)
        switch action {
        case .drop: return .drop
        case .delay(let nanos): return .delay(nanos: nanos)
        }
    }

    /// The wake-up fault for `local`'s wake now (it reported the push of `callID` and is about to REGISTER): true
    /// when the REGISTER is put off (a late wake; `wakeDue` sends it), false to REGISTER now (a lost REGISTER marks
    /// the device so the filter drops it).
    func wakeFault(_ local: Int, callID: String) -> Bool {
        guard let since = faults.sinceLoad(), let planned = table.faultTime(local),
              let part = table.faultSubject(local), let flow = table.flowName(local) else { return false }
        let device = table.devices[local].identity.index
        guard let (action, note) = faults.schedule.sipWakeDecision(device: device, subject: part.subject,
                                                                   plannedSinceLoad: planned, flow: flow)
        else { return false }
        log(note, local: local, seq: 0, since: since, now: now, call: part.call)
        switch action {
        case .registerLost:
            faultState.registerLost.insert(local)
            return false
        case .late(let nanos):
            schedule(.wake(local: local, callID: callID), at: now + nanos)
            return true
        }
    }

    /// A registration the agent sent by itself was answered or failed (`registered` follows the ones the Driver
    /// asked for): a failed one after a fault hit its datagrams lapses the registration; the next success ends a
    /// lapse (`SIPRegistrationFaults`).
    func registrationSettled(_ local: Int, ok: Bool) {
        guard faultState.messages, let since = faults.sinceLoad() else { return }
        if ok {
            faultState.registrationHit[local] = nil
            if let window = faultState.lapsed.removeValue(forKey: local) {
                logOffCall(SIPRegistrationFaults.restored, window: window, local: local, since: since)
            }
        } else if let window = faultState.registrationHit.removeValue(forKey: local), agents.registering[local] == nil {
            faultState.lapsed[local] = window
            books.count(.fault(SIPRegistrationFaults.lapsed), at: now)
            logOffCall(SIPRegistrationFaults.lapsed, window: window, local: local, since: since)
        }
    }

    private func logOffCall(_ kind: String, window: String, local: Int, since: UInt64) {
        faults.log.add(.init(sinceLoadNanos: since, window: window, kind: kind,
                             device: table.devices[local].identity.index, seq: 0))
    }

    /// `call`: the device's call whose datagram the fault hit (`SIPDatagramOwner`), nil when it hit one of no call.
    private func log(_ note: FaultNote, local: Int, seq: UInt64, since: UInt64, now: UInt64, call: Int?) {
        let part = call.flatMap { table.faultSubject(local, call: $0) }
        books.count(.fault(note.kind), at: now)
        if let id = part?.call { books.tracer?.fault(call: id, kind: note.kind, window: note.window, now: now) }
        faults.log.add(.init(sinceLoadNanos: since, window: note.window, kind: note.kind,
                             device: table.devices[local].identity.index, seq: seq, call: part?.call ?? -1,
                             role: part?.role ?? -1))
    }
}
