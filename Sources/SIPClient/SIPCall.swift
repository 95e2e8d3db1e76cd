import SIP

/// One call of an agent, either end: the INVITE that began it, its dialog once there is one, and the SDP this
/// end offered or answered.
struct SIPCall {
    enum Role { case caller, callee }
    enum Phase { case inviting, ringing, confirmed, ending }

    var role: Role
    var phase: Phase
    /// The initial INVITE (sent or received): CANCEL and its responses are built from it.
    var invite: SIPMessage
    var dialog: SIPDialog?
    /// The callee's To tag (given with 180 and the final response).
    var localTag: String
    var localSDP: SDPSession
    /// Where the callee's responses to the INVITE go.
    var source: Int
    /// A CANCEL went out (caller) or arrived (callee).
    var cancelled = false
    /// The INVITE answered a 401/407 already.
    var answeredChallenge = false
    /// The hold state asked for by the re-INVITE in flight.
    var pendingHold: Bool?
    /// The server transaction (key) whose 2xx waits for its ACK: the INVITE's, then each re-INVITE's this end
    /// answers. The ACK has a branch of its own (§17.1.1.3), so it is matched here, by dialog.
    var awaitingAck: TransactionKey?
    /// The first ACK came (the callee's call is answered once).
    var acked = false
}

extension SIPUserAgent {
    // MARK: - Caller

    /// Places a call to `target` (a SIP URI through the proxy); returns its Call-ID, the handle for the rest.
    @discardableResult
    public func invite(_ target: String, now: UInt64) -> String {
        let callID = token() + "@" + localHost
        let sdp = SDPSession(address: localHost, port: 40_000 + Int(ids.random.next() % 10_000) * 2)
        var request = SIPMessage.request(.invite, uri: target, body: sdp.body)
        let tag = token()
        request.addHeader(.via, via(branch: newBranch()))
        request.addHeader(.maxForwards, "70")
        request.addHeader(.from, "<\(account.addressOfRecord)>;tag=\(tag)")
        request.addHeader(.to, "<\(target)>")
        request.addHeader(.callID, callID)
        request.addHeader(.cseq, SIPCSeq(1, .invite).text)
        request.addHeader(.contact, "<\(contactURI)>")
        request.addHeader(.contentType, "application/sdp")
        calls[callID] = SIPCall(role: .caller, phase: .inviting, invite: request, localTag: tag, localSDP: sdp,
                                source: 0)
        startClient(request, now: now)
        return callID
    }

    /// Cancels an unanswered outgoing call (§9.1); false when it is not ringing or already answered. The call
    /// ends with `.cancelled` when the 487 comes; if a 200 crossed the CANCEL, it is `.answered`, ACKed and ended
    /// by a BYE (`.ended(.localBye)`).
    @discardableResult
    public func cancel(_ callID: String, now: UInt64) -> Bool {
        guard var call = calls[callID], call.role == .caller, call.phase == .inviting || call.phase == .ringing,
              !call.cancelled else { return false }
        call.cancelled = true
        calls[callID] = call
        var cancel = SIPMessage.request(.cancel, uri: call.invite.requestURI ?? "")
        for name in [SIPHeaderName.via, .from, .to, .callID] {
            if let value = call.invite.header(name) { cancel.addHeader(name, value) }
        }
        cancel.addHeader(.maxForwards, "70")
        cancel.addHeader(.cseq, SIPCSeq(call.invite.cseq?.number ?? 1, .cancel).text)
        startClient(cancel, now: now)
        return true
    }

    func sendACK(_ dialog: SIPDialog, cseq: UInt32, retransmission: Bool = false) {
        var ack = dialog.ack(cseq: cseq)
        ack.headers.insert(SIPHeader("Via", via(branch: newBranch())), at: 0)
        send(ack, to: .proxy, retransmission: retransmission)
    }

    func responseArrived(_ response: SIPMessage, now: UInt64) {
        guard let status = response.status, let method = response.cseq?.method else { return }
        if method == .register {
            registerResponse(response, status: status, now: now)
            return
        }
        guard let callID = response.callID, var call = calls[callID] else { return }
        switch method {
        case .invite where call.role == .caller && (call.phase == .confirmed || call.phase == .ending)
            && status / 100 == 2 && response.cseq?.number == call.invite.cseq?.number:
            // The callee sent its 200 again (Timer G): the first ACK was lost, and each 2xx is ACKed (§13.2.2.4).
            if let dialog = call.dialog { sendACK(dialog, cseq: response.cseq?.number ?? 1, retransmission: true) }
            return
        case .invite where call.phase == .confirmed || call.phase == .ending:
            reinviteResponse(response, status: status, call: &call)
        case .invite:
            if status == 401 || status == 407, !call.answeredChallenge,
               let value = response.header(status == 401 ? .wwwAuthenticate : .proxyAuthenticate),
               let challenge = DigestChallenge(value), challenge.isSupported {
                call.answeredChallenge = true
                call.invite = authorized(call.invite, challenge: challenge, proxy: status == 407)
                calls[callID] = call
                startClient(call.invite, now: now)
                return
            }
            inviteResponse(response, status: status, call: &call)
        case .bye where status >= 200:
            calls[callID] = call
            endCall(callID, .localBye)
            return
        default:
            break
        }
        if calls[callID] != nil { calls[callID] = call }
        if method == .invite, status / 100 == 2, call.cancelled, call.phase == .confirmed {
            // A 200 crossed this agent's CANCEL: the call is answered after all, and the user wanted it over, so it
            // is ACKed (above) and ended with a BYE (§9.1, §15); `.ended(.localBye)` follows.
            bye(callID, now: now)
        }
    }

    private func inviteResponse(_ response: SIPMessage, status: Int, call: inout SIPCall) {
        let callID = call.invite.callID ?? ""
        switch status {
        case 100:
            if reportsTrying, call.phase == .inviting { events.append(.progress(call: callID, status: 100)) }
        case 101...199:
            call.phase = .ringing
            if call.dialog == nil { call.dialog = SIPDialog(uac: call.invite, response: response) }
            events.append(.progress(call: callID, status: status))
        case 200...299:
            let first = call.phase != .confirmed
            guard var dialog = SIPDialog(uac: call.invite, response: response) else { return }
            dialog.localSeq = max(dialog.localSeq, call.dialog?.localSeq ?? 0)
            call.dialog = dialog
            call.phase = .confirmed
            sendACK(dialog, cseq: response.cseq?.number ?? 1, retransmission: !first)
            if first { events.append(.answered(call: callID)) }
        default:
            calls[callID] = nil
            call.phase = .ending
            if call.cancelled && status == 487 {
                events.append(.ended(call: callID, reason: .cancelled))
            } else {
                events.append(.failed(call: callID, status: status))
            }
        }
    }

    private func authorized(_ invite: SIPMessage, challenge: DigestChallenge, proxy: Bool) -> SIPMessage {
        var request = invite
        ids.nonceCount += 1
        let value = DigestCredentials(username: account.user, password: account.password)
            .authorization(for: challenge, method: .invite, uri: invite.requestURI ?? "", nonceCount: ids.nonceCount,
                           cnonce: token())
        request.addHeader(proxy ? .proxyAuthorization : .authorization, value)
        request.setHeader(.via, via(branch: newBranch()))
        request.setHeader(.cseq, SIPCSeq((invite.cseq?.number ?? 1) + 1, .invite).text)
        return request
    }

    // MARK: - Either end, in a dialog

    /// Ends an answered call with BYE; `.ended(.localBye)` follows its response.
    @discardableResult
    public func bye(_ callID: String, now: UInt64) -> Bool {
        guard var call = calls[callID], call.phase == .confirmed, var dialog = call.dialog else { return false }
        var request = dialog.request(.bye)
        request.headers.insert(SIPHeader("Via", via(branch: newBranch())), at: 0)
        call.dialog = dialog
        call.phase = .ending
        calls[callID] = call
        startClient(request, now: now)
        return true
    }

    /// Holds (`a=sendonly`) or resumes (`a=sendrecv`) an answered call by re-INVITE; `.hold` follows its 200.
    @discardableResult
    public func setHold(_ callID: String, held: Bool, now: UInt64) -> Bool {
        guard var call = calls[callID], call.phase == .confirmed, call.pendingHold == nil,
              var dialog = call.dialog else { return false }
        call.localSDP.direction = held ? .sendonly : .sendrecv
        call.localSDP.version += 1
        var request = dialog.request(.invite, body: call.localSDP.body, contentType: "application/sdp")
        request.headers.insert(SIPHeader("Via", via(branch: newBranch())), at: 0)
        request.addHeader(.contact, "<\(contactURI)>")
        call.dialog = dialog
        call.pendingHold = held
        calls[callID] = call
        startClient(request, now: now)
        return true
    }

    private func reinviteResponse(_ response: SIPMessage, status: Int, call: inout SIPCall) {
        guard status >= 200, let held = call.pendingHold else { return }
        call.pendingHold = nil
        let callID = call.invite.callID ?? ""
        if status / 100 == 2, let dialog = call.dialog {
            sendACK(dialog, cseq: response.cseq?.number ?? 0)
            events.append(.hold(call: callID, held: held))
        } else {
            events.append(.failed(call: callID, status: status))
        }
    }

    func endCall(_ callID: String, _ reason: SIPEndReason) {
        guard calls.removeValue(forKey: callID) != nil else { return }
        events.append(.ended(call: callID, reason: reason))
    }
}
