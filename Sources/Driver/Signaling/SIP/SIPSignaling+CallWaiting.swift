import CallModel
import Metrics

/// An INVITE for another call reaching a SIP device already in one: LiveCommunicationKit's call waiting. Before,
/// such an INVITE (an outside party's: SIPp through Kamailio) was taken for the device's own call: it became a leg
/// of that call, was reported to it, and rang until the outside party gave up.
///
/// Now the device reports it to its conversation manager, as an app reports a second incoming conversation, and the
/// manager's limits decide (`max_conversation_groups`). Over them the report is refused
/// (`conversations.refused_over_limit`) and the device answers 486 Busy Here (`calls.outside_refused.busy`).
/// Within them the device takes it as a call of its own, an outside-started flow run beside the device's call
/// (`WorkerEffect.takeWaiting`, `Device.waitingCall`; `calls.started_by_outside`), and answers it as
/// LiveCommunicationKit's hold-and-accept does: its own call is held first (a re-INVITE with `a=sendonly`, the
/// dialog `held`), then the waiting one answered, so the device never holds two unheld dialogs. The held call stays
/// held, as the system leaves it, until its flow ends it. A call the device cannot take (no outside-started flow,
/// a waiting call already, the window closed) gets 486 too (`calls.outside_refused.call_waiting`, or
/// `pushes.unexpected` when the scenario expects no outside call); its conversation ends on the device. On the
/// wake-up path the waiting call's push and its INVITE race (Kamailio pushes and forks to the awake contact at
/// once): whichever comes first reports it, once.
extension SIPSignaling {
    /// Whether the INVITE `callID` reaching `local` belongs to its call `id`: a push already woke the device for
    /// it, the call knows the conversation (an outside call's `main`), or one of the call's devices placed it.
    func callExpects(_ id: Int, _ callID: String, on local: Int) -> Bool {
        if wake.wokeFor[local] == callID || legs[Self.legKey(local, callID)] != nil { return true }
        // Read in place (`withCall`): `table.calls[id]`, and `calls.values[i]` too, copied the whole interpreter out.
        return table.withCall(id) { run in
            run.known.conversations.values.contains(callID)
                || run.roles.values.contains { legs.contains(Self.legKey($0, callID)) }
        } ?? false
    }

    /// Which of the calls `local` runs (its call, or the waiting call it took) `callID` belongs to, if any.
    func callOf(_ callID: String, on local: Int) -> Int? {
        [table.devices[local].callID, table.devices[local].waitingCall].compactMap { $0 }
            .first { callExpects($0, callID, on: local) }
    }

    /// The INVITE `callID` of a call the device's own call does not expect: reported, then taken beside it when
    /// the model allows and an outside-started flow can run it, else declined busy.
    func callWaiting(_ local: Int, callID: String, caller: Handle?, agent: Int, now: UInt64) {
        let (reported, overLimit) = table.devices.reportWaiting(
            local, payload: PushPayload(uuid: callID, caller: caller), uuid: callID, now: now)
        // Not `reported`: a push reported it already (a sleeping device's, PushKit's rule), decided and counted.
        if reported {
            books.count(.conversationsReported, at: now)
            if overLimit { books.count(.conversationsRefusedOverLimit, at: now) }
        }
        // Taken beside the device's call when the launcher starts one for it: the device's `waitingCall` then.
        if !overLimit, table.devices[local].waitingCall == nil {
            host.apply(.takeWaiting(device: local, conversation: callID, now: now))
            if let id = table.devices[local].waitingCall {
                legs[Self.legKey(local, callID)] = Leg(call: id, caller: false)
                dialog(local, callID, .early)
                host.tell(id, now: now) { $0.pushReported(device: local, conversation: callID, now: now, &$1) }
                return
            }
        }
        let expectsOutside = settings.flows.contains { $0.startsOutside }
        books.count(expectsOutside ? .callsOutsideRefused(overLimit ? "busy" : "call_waiting")
                                   : .pushesUnexpected, at: now)
        pool.perform(agent) { $0.decline(callID, status: 486, now: $1) }
        // Ended on the device (refused by the system, or declined by its user), so a push for it arriving after
        // its INVITE is one of a known, ended conversation, which an app in a call need not report.
        table.devices[local].manager.remoteEnded(callID, reason: overLimit ? .failed : .localEnded)
    }

    /// Hold-and-accept: before `local` answers `callID` (or the call it placed is answered), every other dialog
    /// it holds active (confirmed on its side, not held) is put on hold, so the device keeps one active dialog, the
    /// newest. Its dialog is `held` from now (the device's own state, written before this one's `confirmed`); the
    /// re-INVITE goes now, or on the ACK when the other call's answer has none yet (`Leg.holdOnAck`).
    func holdOthers(_ local: Int, answering callID: String, agent: Int) {
        guard table.devices[local].waitingCall != nil else { return }  // in one call only: nothing to hold
        for (key, leg) in legs.entries(of: local) where leg.dialogState == .confirmed && leg.holdAsked == nil
            && !leg.holdOnAck {
            let other = key.callID
            guard other != callID else { continue }
            var sent = false
            pool.perform(agent) { agent, now in sent = agent.setHold(other, held: true, now: now) }
            if sent { legs[key]?.holdAsked = true } else { legs[key]?.holdOnAck = true }
            dialog(local, other, .held)
            books.count(.sip("call_waiting", "held"), at: now)
        }
    }

    /// The ACK for a call hold-and-accept held before it came: its hold re-INVITE goes now.
    func sendHoldOnAck(_ local: Int, _ callID: String) {
        let key = Self.legKey(local, callID)
        legs[key]?.holdOnAck = false
        guard let agent = agents.agent[local] else { return }
        var sent = false
        pool.perform(agent) { agent, now in sent = agent.setHold(callID, held: true, now: now) }
        if sent { legs[key]?.holdAsked = true }
    }
}
