import CallModel
import Metrics

/// An INVITE for another call reaching a SIP device already in one: LiveCommunicationKit's call waiting. Before,
/// such an INVITE (an outside party's: SIPp through Kamailio) was taken for the device's own call: it became a leg
/// of that call, was reported to it, and rang until the outside party gave up.
///
/// Now the device reports it to its conversation manager, as an app reports a second incoming conversation, and
/// the manager's limits decide (`max_conversation_groups`): over them the report is refused
/// (`conversations.refused_over_limit`) and the device answers 486 Busy Here, counted
/// `calls.outside_refused.busy`. Within them the system would let the user take it, but a callstorm device runs
/// one flow at a time (taking it means LiveCommunicationKit's hold-and-accept across two flows, and two unheld
/// conversations break the checker's single-active rule), so the user declines it: 486 Busy Here, counted
/// `calls.outside_refused.call_waiting`. Either way the device's own call goes on untouched, and the waiting
/// conversation is forgotten once declined.
extension SIPSignaling {
    /// Whether the INVITE `callID` reaching `local` belongs to its call `id`: a push already woke the device for
    /// it, the call knows the conversation (an outside call's `main`), or one of the call's devices placed it.
    func callExpects(_ id: Int, _ callID: String, on local: Int) -> Bool {
        if wake.wokeFor[local] == callID || legs[Self.legKey(local, callID)] != nil { return true }
        guard let run = table.calls[id] else { return false }
        if run.known.conversations.values.contains(callID) { return true }
        return run.roles.values.contains { legs[Self.legKey($0, callID)] != nil }
    }

    /// The INVITE `callID` of a call the device's own call does not expect: reported, then declined busy.
    func callWaiting(_ local: Int, callID: String, caller: Handle?, agent: Int, now: UInt64) {
        let refusal = table.devices.reportIncoming(local, payload: PushPayload(uuid: callID, caller: caller),
                                                   uuid: callID, now: now)
        books.count(.conversationsReported, at: now)
        if refusal != nil { books.count(.conversationsRefusedOverLimit, at: now) }
        let expectsOutside = settings.flows.contains { $0.startsOutside }
        books.count(expectsOutside ? .callsOutsideRefused(refusal == nil ? "call_waiting" : "busy")
                                   : .pushesUnexpected, at: now)
        pool.perform(agent) { $0.decline(callID, status: 486, now: $1) }
        table.devices[local].manager.forget(callID)
        table.devices[local].reportedAt[callID] = nil
        table.devices[local].pushCaller[callID] = nil
    }
}
