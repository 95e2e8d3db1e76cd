import SIP

extension InviteSessions {
    // MARK: - Cancelled calls, kept for a 2xx that crossed the CANCEL

    /// A call this agent CANCELled, after the final non-2xx its INVITE got: what a crossing 2xx needs (the INVITE
    /// it answers) and until when one is awaited.
    struct AbandonedCall {
        var call: SIPCall
        var until: UInt64
    }

    /// Keeps cancelled `call` for `abandonedFor` after its INVITE's final non-2xx. The callee may have answered
    /// before the CANCEL reached it; a proxy that answered the CANCEL's INVITE 487 itself (no branch rang, or
    /// tsilo's push timeout) forwards that 2xx after the 487 (RFC 6026 §8.1).
    func abandon(_ call: SIPCall, _ callID: String, now: UInt64) {
        abandoned[callID] = AbandonedCall(call: call, until: now + abandonedFor)
    }

    /// A 2xx to the INVITE of a call this agent cancelled and whose INVITE had ended 487: the call is answered
    /// after all, at the callee, and the user wanted it over, so it is ACKed and ended with a BYE at once (§9.1,
    /// §15). `.answered` and then `.ended(.localBye)` tell the owner, as for a 2xx that came before the 487.
    /// Nothing when no cancelled call waits for it (a stray 2xx).
    func answeredAfterCancel(_ response: SIPMessage, now: UInt64, core: some SIPCore) {
        guard let callID = response.callID, let call = abandoned.removeValue(forKey: callID)?.call,
              response.cseq?.number == call.invite.cseq?.number,
              let dialog = SIPDialog(uac: call.invite, response: response) else { return }
        store(dialog)
        call.dialog = dialog.id
        call.phase = .confirmed
        store(call, callID)
        sendACK(dialog, cseq: response.cseq?.number ?? 1, core: core)
        core.report(.answered(call: callID))
        _ = bye(callID, now: now, core: core)
    }

    /// The earliest instant a cancelled call stops waiting for a crossing 2xx. A plain loop, and nothing when there
    /// are none: the pool asks after every datagram, and `values.lazy.map(\.until).min()` made its key path and
    /// retained the table each time, ~300 instructions for an empty one (issue 33).
    var abandonedDeadline: UInt64? {
        guard !abandoned.isEmpty else { return nil }
        var next: UInt64?
        for call in abandoned.values { next = min(next ?? call.until, call.until) }
        return next
    }

    /// Forgets the cancelled calls whose wait ended at `now`: no 2xx crossed their CANCEL, which the owner hears
    /// as `.settled` (their end is certain at both ends now).
    func expireAbandoned(now: UInt64, core: some SIPCore) {
        guard let next = abandonedDeadline, next <= now else { return }
        for (callID, call) in abandoned where call.until <= now {
            abandoned[callID] = nil
            core.report(.settled(call: callID))
        }
    }
}
