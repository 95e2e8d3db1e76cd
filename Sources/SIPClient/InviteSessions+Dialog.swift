import SIP

extension InviteSessions {
    // MARK: - Either end, in a dialog

    /// Ends an answered call with BYE; `.ended(.localBye)` follows its response. A callee whose 2xx has no ACK yet
    /// sends it when the ACK comes (§15: not before the ACK or the server transaction's end): the call is ending
    /// from now, and a lost ACK ends it `.timedOut` at Timer L, when the held BYE goes out.
    @discardableResult
    func bye(_ callID: String, now: UInt64, core: some SIPCore) -> Bool {
        guard let call = call(callID), call.phase == .confirmed, let id = call.dialog, dialogs.contains(id) else {
            return false
        }
        call.phase = .ending
        if call.role == .callee, !call.acked {
            call.byeOnAck = true
            store(call, callID)
            return true
        }
        store(call, callID)
        return sendInDialog(.bye, on: id, now: now, core: core)
    }

    /// Holds (`a=sendonly`) or resumes (`a=sendrecv`) an answered call by re-INVITE; `.hold` follows its 200.
    /// False while the callee's 2xx waits for its ACK: no new INVITE transaction may start in the dialog before
    /// (§14.1; the owner sends it on `.answered`).
    func setHold(_ callID: String, held: Bool, now: UInt64, core: some SIPCore) -> Bool {
        guard let call = call(callID), call.phase == .confirmed, call.pendingHold == nil, let id = call.dialog,
              dialogs.contains(id), call.role == .caller || call.acked else { return false }
        call.localSDP.direction = held ? .sendonly : .sendrecv
        call.localSDP.version += 1
        call.pendingHold = held
        store(call, callID)
        return sendInDialog(.invite, on: id, body: call.localSDP.body, contentType: "application/sdp", now: now,
                            core: core)
    }

    /// The final response to this end's re-INVITE: ACKed and reported as `.hold` when 2xx, `.failed` otherwise.
    func reinviteResponse(_ response: SIPMessage, status: Int, call: SIPCall, core: some SIPCore) {
        guard status >= 200, let held = call.pendingHold else { return }
        call.pendingHold = nil
        let callID = call.invite.callID ?? ""
        if status / 100 == 2, let id = call.dialog, dialogs.contains(id) {
            if let answer = SDPSession(parsing: response.body) { call.remoteSDP = answer }
            sendACK(on: id, cseq: response.cseq?.number ?? 0, core: core)
            core.report(.hold(call: callID, held: held))
        } else {
            core.report(.failed(call: callID, status: status))
        }
    }

    /// A BYE from the peer: 200 and the call ends (`.remoteBye`); a BYE on a forked answer this end already
    /// declined ends only that dialog.
    func incomingBye(_ request: SIPMessage, source: Int, now: UInt64, core: some SIPCore) {
        guard let id = inDialog(request, source: source, now: now, core: core) else { return }
        core.respond(request.response(200), to: request, source: source, now: now)
        if let mine = call(id.callID)?.dialog, mine != id {
            forget(id)
            return
        }
        endCall(id.callID, Self.endReason(request, otherwise: .remoteBye), core: core)
    }

    /// A re-INVITE from the peer (hold or resume): 200 with the SDP answer, `.hold` reported; 491 while this
    /// end's own re-INVITE is out (glare, §14.2), 481 once this end sent its BYE (§15), 488 for an offer it
    /// cannot answer.
    func reinvite(_ request: SIPMessage, source: Int, now: UInt64, core: some SIPCore) {
        guard let id = inDialog(request, source: source, now: now, core: core), let call = call(id.callID),
              dialogs.contains(id) else { return }
        if call.phase == .ending || call.pendingHold != nil {
            // The other end's transaction layer ACKs either.
            core.respond(request.response(call.phase == .ending ? 481 : 491), to: request, source: source, now: now)
            return
        }
        refreshTarget(of: id, from: request)
        guard let offer = SDPSession(parsing: request.body),
              var answer = SDPSession.answer(to: offer, address: core.local.host, port: call.localSDP.port) else {
            core.respond(request.response(488), to: request, source: source, now: now)
            return
        }
        answer.version = call.localSDP.version + 1
        call.localSDP = answer
        call.remoteSDP = offer
        call.awaitingAck = TransactionLayer.key(request.branch, .invite)
        store(call, id.callID)
        var response = request.response(200)
        response.appendLines(core.local.contactSDPLines)  // Contact, Content-Type: application/sdp
        response.body = answer.body
        core.respond(response, to: request, source: source, now: now)
        core.report(.hold(call: id.callID, held: offer.direction == .sendonly || offer.direction == .inactive))
    }
}
