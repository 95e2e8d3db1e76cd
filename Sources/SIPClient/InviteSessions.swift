import SIP

/// One agent's INVITE sessions (RFC 3261 §12–§15; PJSIP's `sip_inv.c` over its dialog layer, libre's `sipsess`):
/// its calls by Call-ID (the handle its owner names a call by) and every dialog by Call-ID and both tags, so a
/// forking proxy's answers from two phones to one INVITE are two dialogs (§12.1.2, §13.2.2.4). The transactions
/// below it and the sending are the agent's (`SIPCore`, passed to each call).
final class InviteSessions {
    let account: SIPAccount
    let ids: SIPIdentifiers
    /// How a new INVITE is met by itself: 180 at once, and 200 right after (see `SIPUserAgent.autoRing`).
    var autoRing = true
    var autoAnswer = false
    /// Report a 100 Trying to this agent's INVITE as `.progress(call:, status: 100)`.
    var reportsTrying = false
    /// Asked for the RTP port of a new call's SDP offer (caller) or answer (callee), by Call-ID: the owner's media
    /// stream listens there (`SIPUserAgent.mediaPort`). Nil, or a nil answer: a port nothing listens on.
    var mediaPort: ((_ callID: String) -> Int?)?
    /// By Call-ID; an `AgentTable` (a phone has a few calls), scanned rather than hashed.
    private(set) var calls = AgentTable<String, SIPCall>()
    /// Every dialog, early or confirmed, by Call-ID, local tag and remote tag (§12).
    private(set) var dialogs = AgentTable<SIPDialog.ID, SIPDialog>()
    /// Calls that ended while their callee's 2xx still waited for its ACK (a BYE overtook it), by Call-ID: the
    /// ACK that comes after still stops that 2xx's retransmission (RFC 6026 Accepted), until Timer L.
    var unacked: [String: TransactionKey] = [:]
    /// Calls this agent CANCELled whose INVITE then ended unanswered (487), by Call-ID, each until `abandonedFor`
    /// after: a proxy still forwards a 2xx that crossed the CANCEL (RFC 6026 §8.1), which is ACKed and its dialog
    /// ended by a BYE at once (§9.1, §15), so the callee is not left in a call nobody is in
    /// (`InviteSessions+Abandoned`).
    var abandoned: [String: AbandonedCall] = [:]
    /// How long a cancelled call is kept after its 487: 64*T1, the bound §9.1 gives a CANCEL's INVITE.
    var abandonedFor: UInt64 = 64 * SIPTimerValues(reliable: false).t1

    init(account: SIPAccount, ids: SIPIdentifiers) {
        self.account = account
        self.ids = ids
    }

    // MARK: - Calls and dialogs

    func call(_ callID: String) -> SIPCall? { calls[callID] }

    func store(_ call: SIPCall, _ callID: String) { calls[callID] = call }

    /// The dialog `call` settled on, if any.
    func dialog(of call: SIPCall) -> SIPDialog? { call.dialog.flatMap { dialogs[$0] } }

    func dialog(_ id: SIPDialog.ID) -> SIPDialog? { dialogs[id] }

    func store(_ dialog: SIPDialog) { dialogs[dialog.id] = dialog }

    /// The dialog's remote target from a target-refresh request (changed in its table, not copied out and back).
    func refreshTarget(of id: SIPDialog.ID, from request: SIPMessage) {
        _ = dialogs.update(id) { $0.refreshTarget(from: request) }
    }

    /// Dialog `id` confirmed by `response`, the 2xx to `invite`, in its table (`SIPDialog.confirm`); false when
    /// there is no such dialog or the response does not confirm it (the caller then makes the dialog anew).
    func confirm(_ id: SIPDialog.ID, by response: SIPMessage, invite: SIPMessage) -> Bool {
        dialogs.update(id) { $0.confirm(by: response, invite: invite) } == true
    }

    func forget(_ id: SIPDialog.ID) { dialogs[id] = nil }

    /// The dialog a message inside one belongs to (§12.2): this end's tag is the To tag of the peer's requests
    /// (`peerRequest`), the From tag of this end's own requests and of the responses to them.
    func dialogID(of message: SIPMessage, peerRequest: Bool) -> SIPDialog.ID? {
        guard let callID = message.callID, let toTag = message.toTag, let fromTag = message.fromTag else {
            return nil
        }
        return peerRequest ? SIPDialog.ID(callID: callID, localTag: toTag, remoteTag: fromTag)
            : SIPDialog.ID(callID: callID, localTag: fromTag, remoteTag: toTag)
    }

    /// Ends call `callID` with `reason` (nothing if it is gone) and forgets its dialogs.
    func endCall(_ callID: String, _ reason: SIPEndReason, core: some SIPCore) {
        guard let call = calls.removeValue(forKey: callID) else { return }
        if call.role == .callee, let key = call.awaitingAck { unacked[callID] = key }
        if case .elsewhere(let cause) = reason { core.counters.forks["elsewhere_\(cause)", default: 0] += 1 }
        forgetDialogs(of: callID)
        core.report(.ended(call: callID, reason: reason))
    }

    /// Forgets call `callID` without an event (a failed INVITE reports `.failed` itself).
    /// Every call, dialog and cancelled call forgotten, as in a new agent (a sleeping device's agent, `sleep`).
    func reset() {
        calls = AgentTable()
        dialogs = AgentTable()
        unacked = [:]
        abandoned = [:]
    }

    func dropCall(_ callID: String) {
        calls[callID] = nil
        forgetDialogs(of: callID)
    }

    /// Removed in place in one pass: collecting the ids first copied the keys and filtered them into an array.
    private func forgetDialogs(of callID: String) {
        dialogs.removeAll { $0.callID == callID }
    }

    // MARK: - In a dialog

    /// The one in-dialog guard (§12.2.2): the dialog a request inside one belongs to, found by Call-ID and both
    /// tags, its CSeq checked and remembered. When the request cannot go on this answers it: 481 when no such
    /// dialog exists (counted stray by method), 500 when its CSeq is out of order; and returns nil.
    func inDialog(_ request: SIPMessage, source: Int, now: UInt64, core: some SIPCore) -> SIPDialog.ID? {
        // The dialog is checked in its table (`update`): a copy out and back retained each of its strings.
        guard let id = dialogID(of: request, peerRequest: true), calls.contains(id.callID),
              let accepted = dialogs.update(id, { $0.acceptRemote(request) }) else {
            core.counters.stray[request.method?.rawValue ?? "?", default: 0] += 1
            core.respond(request.response(481), to: request, source: source, now: now)
            return nil
        }
        guard accepted else {
            core.respond(request.response(500), to: request, source: source, now: now)
            return nil
        }
        return id
    }

    /// Sends an in-dialog request (BYE, re-INVITE) on dialog `id` with a new branch, Contact when it refreshes the
    /// target; false when the dialog is gone.
    @discardableResult
    func sendInDialog(_ method: SIPMethod, on id: SIPDialog.ID, body: [UInt8] = [], contentType: String? = nil,
                      reason: SIPReason? = nil, now: UInt64, core: some SIPCore) -> Bool {
        guard dialogs.contains(id) else { return false }
        let branch = ids.branch()
        let contact = method == .invite ? core.local.contactLine : nil
        guard var request = dialogs.update(id, { dialog in
            dialog.request(method, via: core.local.viaLine, branch: branch, contact: contact, body: body,
                           contentType: contentType)
        }) else { return false }
        if let reason { request.addHeader(SIPReason.header, reason.value) }
        core.startClient(request, now: now)
        return true
    }

    /// The ACK for the 2xx with CSeq `cseq` on `dialog` (§13.2.2.4), a new branch each time.
    func sendACK(_ dialog: SIPDialog, cseq: UInt32, retransmission: Bool = false, core: some SIPCore) {
        let ack = dialog.ack(cseq: cseq, via: core.local.viaLine, branch: ids.branch())
        core.sendACK(ack, retransmission: retransmission)
    }

    /// `sendACK` on dialog `id` in its table (the ACK written there, no copy of the dialog); nothing if it is gone.
    func sendACK(on id: SIPDialog.ID, cseq: UInt32, retransmission: Bool = false, core: some SIPCore) {
        let via = core.local.viaLine
        guard let ack = dialogs.update(id, { $0.ack(cseq: cseq, via: via, branch: ids.branch()) }) else { return }
        core.sendACK(ack, retransmission: retransmission)
    }

    // MARK: - Time

    /// A transaction of a call ran out: a lost ACK (Timer L) or a BYE's ends the call; an INVITE's fails it
    /// with 408 (and forgets it unless it was answered: a re-INVITE's leaves the call up). A callee that hung up
    /// while its 2xx waited for the ACK sends that BYE now (§15: until the server transaction ends; §13.3.1.4:
    /// a session whose ACK never came SHOULD be ended with a BYE), so the caller, whose ACK was lost, is not left
    /// in the call.
    func timedOut(_ request: SIPMessage, timer: SIPTimer, now: UInt64, core: some SIPCore) {
        if timer == .l, let callID = request.callID { unacked[callID] = nil }
        guard let callID = request.callID, let call = calls[callID] else { return }
        if timer == .l, call.byeOnAck, let id = call.dialog {
            sendInDialog(.bye, on: id, now: now, core: core)
        }
        if request.method == .bye, let id = dialogID(of: request, peerRequest: false), let mine = call.dialog,
           id != mine {
            dialogs[id] = nil  // the BYE of a forked answer this end declined: the call goes on
            return
        }
        if timer == .l || request.method == .bye {
            endCall(callID, .timedOut, core: core)
        } else if request.method == .invite {
            core.report(.failed(call: callID, status: 408))
            if dialog(of: call)?.state != .confirmed { dropCall(callID) }
        }
    }
}
