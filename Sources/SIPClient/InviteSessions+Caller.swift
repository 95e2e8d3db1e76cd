import SIP

extension InviteSessions {
    // MARK: - Caller

    /// Places a call to `target` (a SIP URI through the proxy); returns its Call-ID, the handle for the rest.
    func invite(_ target: String, now: UInt64, core: some SIPCore) -> String {
        let callID = ids.token() + "@" + core.local.host
        let drawn = ids.mediaPort()  // drawn either way: the identifiers after it stay as they were
        let sdp = SDPSession(address: core.local.host, port: mediaPort?(callID) ?? drawn)
        let tag = ids.token()
        let request = core.local.invite(target, callID: callID, tag: tag, branch: ids.branch(), body: sdp.body)
        store(SIPCall(role: .caller, phase: .inviting, invite: request, localTag: tag, localSDP: sdp, source: 0),
              callID)
        core.startClient(request, now: now)
        return callID
    }

    /// Cancels an unanswered outgoing call (§9.1); false when it is not ringing or already answered.
    func cancel(_ callID: String, now: UInt64, core: some SIPCore) -> Bool {
        guard let call = call(callID), call.role == .caller, call.phase == .inviting || call.phase == .ringing,
              !call.cancelled else { return false }
        call.cancelled = true
        store(call, callID)
        var cancel = SIPMessage.request(.cancel, uri: call.invite.requestURI ?? "")
        for name in [SIPHeaderName.via, .from, .to, .callID] { cancel.copyHeader(name, from: call.invite) }
        cancel.addHeader(.maxForwards, "70")
        cancel.addHeader(.cseq, SIPCSeq(call.invite.cseq?.number ?? 1, .cancel).text)
        core.startClient(cancel, now: now)
        return true
    }

    /// A response to this agent's INVITE, re-INVITE or BYE, delivered by its client transaction.
    func receive(_ response: SIPMessage, now: UInt64, core: some SIPCore) {
        guard let status = response.status, let method = response.cseq?.method, let callID = response.callID
        else { return }
        guard let call = call(callID) else {
            if method == .invite, status / 100 == 2 { answeredAfterCancel(response, now: now, core: core) }
            return
        }
        switch method {
        case .invite where call.role == .caller && (call.phase == .confirmed || call.phase == .ending)
            && status / 100 == 2 && response.cseq?.number == call.invite.cseq?.number:
            // A 2xx once answered: the callee's again (Timer G: the first ACK was lost), or a second phone's
            // behind a forking proxy. Each is ACKed (§13.2.2.4).
            answeredAgain(response, call: call, now: now, core: core)
            return
        case .invite where call.phase == .confirmed || call.phase == .ending:
            reinviteResponse(response, status: status, call: call, core: core)
        case .invite:
            if !call.answeredChallenge, let challenge = response.digestChallenge {
                call.answeredChallenge = true
                call.invite = authorized(call.invite, answering: challenge, core: core)
                store(call, callID)
                core.startClient(call.invite, now: now)
                return
            }
            inviteResponse(response, status: status, call: call, now: now, core: core)
        case .bye where status >= 200:
            if let id = dialogID(of: response, peerRequest: false), let mine = call.dialog, id != mine {
                forget(id)  // the BYE of a forked answer this end declined: the call goes on
                return
            }
            endCall(callID, .localBye, core: core)
            return
        default:
            break
        }
        if calls.contains(callID) { store(call, callID) }
        if method == .invite, status / 100 == 2, call.cancelled, call.phase == .confirmed {
            // A 200 crossed this agent's CANCEL: the call is answered after all, and the user wanted it over, so it
            // is ACKed (above) and ended with a BYE (§9.1, §15); `.ended(.localBye)` follows.
            bye(callID, now: now, core: core)
        }
    }

    private func inviteResponse(_ response: SIPMessage, status: Int, call: SIPCall, now: UInt64,
                                core: some SIPCore) {
        let callID = call.invite.callID ?? ""
        switch status {
        case 100:
            if reportsTrying, call.phase == .inviting { core.report(.progress(call: callID, status: 100)) }
        case 101...199:
            call.phase = .ringing
            if let early = SIPDialog(uac: call.invite, response: response), !dialogs.contains(early.id) {
                store(early)  // each phone a forking proxy rings has an early dialog of its own
                if call.dialog == nil { call.dialog = early.id }
            }
            core.report(.progress(call: callID, status: status))
        case 200...299:
            let first = call.phase != .confirmed
            let id: SIPDialog.ID
            if let early = dialogID(of: response, peerRequest: false),
               confirm(early, by: response, invite: call.invite) {
                id = early  // the 1xx's early dialog, confirmed in its table (no second dialog made and laid out)
            } else {
                guard var dialog = SIPDialog(uac: call.invite, response: response) else { return }
                dialog.localSeq = max(dialog.localSeq, self.dialog(dialog.id)?.localSeq ?? 0)
                store(dialog)
                id = dialog.id
            }
            call.dialog = id
            call.phase = .confirmed
            if first, let answer = SDPSession(parsing: response.body) { call.remoteSDP = answer }
            sendACK(on: id, cseq: response.cseq?.number ?? 1, retransmission: !first, core: core)
            if first { core.report(.answered(call: callID)) }
        default:
            dropCall(callID)
            call.phase = .ending
            if call.cancelled {
                abandon(call, callID, now: now)
            }
            // A call this end cancelled ended as the user asked, whatever final status crossed the CANCEL (a 486
            // or 408 the callee's side sent first): `.cancelled`, so the owner keeps waiting for a 2xx that may
            // still cross it, as after a 487.
            if call.cancelled {
                core.report(.ended(call: callID, reason: .cancelled))
            } else {
                core.report(.failed(call: callID, status: status))
            }
        }
    }

    /// A 2xx to the INVITE of an answered call. From the call's own dialog it is the callee's retransmission:
    /// ACKed again. From another dialog it is a second phone's answer behind a forking proxy: its dialog is
    /// confirmed, ACKed and ended with a BYE (§13.2.2.4), and the call stays on the first: counted
    /// (`SIPCounters.forks["second_answer"]`).
    func answeredAgain(_ response: SIPMessage, call: SIPCall, now: UInt64, core: some SIPCore) {
        let cseq = response.cseq?.number ?? 1
        guard let id = dialogID(of: response, peerRequest: false), id != call.dialog else {
            if let dialog = dialog(of: call) { sendACK(dialog, cseq: cseq, retransmission: true, core: core) }
            return
        }
        if let known = dialog(id), known.state == .confirmed {
            sendACK(known, cseq: cseq, retransmission: true, core: core)
            return
        }
        guard let fork = SIPDialog(uac: call.invite, response: response) else { return }
        store(fork)
        core.counters.forks["second_answer", default: 0] += 1
        sendACK(fork, cseq: cseq, core: core)
        // The device that answered second learns, as a forking proxy's CANCEL would have told it, that the call
        // was taken elsewhere (RFC 3326 Reason on the BYE).
        sendInDialog(.bye, on: id, reason: .completedElsewhere, now: now, core: core)
    }

    /// The INVITE again with the digest answer to `challenge`, a new branch and the next CSeq.
    private func authorized(_ invite: SIPMessage, answering challenge: (challenge: DigestChallenge, proxy: Bool),
                            core: some SIPCore) -> SIPMessage {
        var request = invite
        account.authorize(&request, answering: challenge, uri: invite.requestURI ?? "", ids: ids)
        request.setHeader(.via, core.local.via(branch: ids.branch()))
        request.setHeader(.cseq, SIPCSeq((invite.cseq?.number ?? 1) + 1, .invite).text)
        return request
    }
}
