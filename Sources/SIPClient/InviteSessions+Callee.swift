import SIP

extension InviteSessions {
    // MARK: - Callee

    /// A new INVITE (an in-dialog one is a re-INVITE): 100, the call reported `.incoming`, then 180 and 200 as
    /// `autoRing` and `autoAnswer` say.
    func incomingInvite(_ request: SIPMessage, source: Int, now: UInt64, core: some SIPCore) {
        guard let callID = request.callID else { return }
        if request.toTag != nil {
            reinvite(request, source: source, now: now, core: core)
            return
        }
        if !addressesThisUser(request) {
            // Sent to another user's contact whose port this agent's socket now holds: a device that slept closed
            // its socket, and the kernel gave the port to this one. The proxy relays a parked INVITE to that stale
            // contact and waits for the woken device's REGISTER (docs/SIP.md); a phone gone from an address does
            // not answer there, so neither does this agent: a final response would end the caller's call for a
            // device that is about to take it, a failure of callstorm's own sockets, not of the server.
            core.counters.misdirected["INVITE", default: 0] += 1
            return
        }
        let tag = ids.token()
        let offer = SDPSession(parsing: request.body)
        let drawn = ids.mediaPort()  // drawn either way: the identifiers after it stay as they were
        let port = mediaPort?(callID) ?? drawn
        let host = core.local.host
        let sdp = offer.flatMap { SDPSession.answer(to: $0, address: host, port: port) }
            ?? SDPSession(address: host, port: port)
        store(SIPCall(role: .callee, phase: .inviting, invite: request, localTag: tag, localSDP: sdp,
                      remoteSDP: offer, source: source), callID)
        core.respond(request.response(100), to: request, source: source, now: now)
        core.report(.incoming(call: callID, from: request.from?.uri ?? ""))
        if autoRing { ring(callID, now: now, core: core) }
        if autoAnswer { answer(callID, now: now, core: core) }
    }

    /// Whether the request's Request-URI is this agent's user, or names no user (a request to the host alone).
    func addressesThisUser(_ request: SIPMessage) -> Bool {
        guard case .request(_, let uri) = request.startLine else { return true }
        if let ascii = Self.asciiUser(uri, is: account.user) { return ascii }
        let rest = uri.hasPrefix("sip:") ? uri.dropFirst(4) : uri.hasPrefix("sips:") ? uri.dropFirst(5) : Substring(uri)
        guard let at = rest.firstIndex(of: "@") else { return true }
        return rest[..<at] == account.user
    }

    /// `addressesThisUser` over the bytes when the URI and the user are ASCII (where `String`'s comparisons are
    /// the bytes'), nil otherwise: the `Substring` steps cost ~2,700 instructions an INVITE.
    static func asciiUser(_ uri: String, is user: String) -> Bool? {
        var uri = uri, user = user
        return uri.withUTF8 { u -> Bool? in
            user.withUTF8 { name -> Bool? in
                for c in u where c >= 0x80 { return nil }
                for c in name where c >= 0x80 { return nil }
                let sip: StaticString = "sip:", sips: StaticString = "sips:"
                func starts(_ p: StaticString) -> Bool {
                    u.count >= p.utf8CodeUnitCount && (0..<p.utf8CodeUnitCount).allSatisfy { u[$0] == p.utf8Start[$0] }
                }
                let from = starts(sip) ? 4 : starts(sips) ? 5 : 0
                var at = from
                while at < u.count, u[at] != 0x40 { at += 1 }  // @
                guard at < u.count else { return true }
                return at - from == name.count && (0..<name.count).allSatisfy { u[from + $0] == name[$0] }
            }
        }
    }

    /// Sends 180 Ringing for an incoming call.
    @discardableResult
    func ring(_ callID: String, now: UInt64, core: some SIPCore) -> Bool {
        guard let call = call(callID), call.role == .callee, call.phase == .inviting else { return false }
        var response = call.invite.response(180, toTag: call.localTag)
        copyRecordRoute(call.invite, into: &response)
        response.appendLines(core.local.contactLine)
        call.phase = .ringing
        store(call, callID)
        core.respond(response, to: nil, source: call.source, now: now)
        return true
    }

    /// Answers an incoming call with 200 and the SDP answer: the callee's dialog is confirmed by this 2xx
    /// (§12.1.1, §13.3.1.4), whatever comes after; `.answered` follows its ACK (an ACK a BYE overtook never
    /// comes to this call, and unmakes nothing).
    @discardableResult
    func answer(_ callID: String, now: UInt64, core: some SIPCore) -> Bool {
        guard let call = call(callID), call.role == .callee, call.phase == .inviting || call.phase == .ringing
        else { return false }
        var response = call.invite.response(200, toTag: call.localTag)
        copyRecordRoute(call.invite, into: &response)
        response.appendLines(core.local.contactSDPLines)  // Contact, Content-Type: application/sdp
        response.body = call.localSDP.body
        let dialog = SIPDialog(uas: call.invite, localTag: call.localTag, state: .confirmed)
        if let dialog { store(dialog) }
        call.dialog = dialog?.id
        call.phase = .confirmed
        call.awaitingAck = TransactionLayer.key(call.invite.branch, .invite)
        store(call, callID)
        core.respond(response, to: nil, source: call.source, now: now)
        return true
    }

    /// A dialog-creating response carries the request's Record-Route (§12.1.1), so the caller routes its ACK, BYE
    /// and re-INVITEs through the same proxies.
    private func copyRecordRoute(_ request: SIPMessage, into response: inout SIPMessage) {
        response.copyHeaders(.recordRoute, from: request)
    }

    /// Declines an incoming call: 486 Busy Here or 603 Decline.
    func decline(_ callID: String, status: Int, now: UInt64, core: some SIPCore) -> Bool {
        guard let call = call(callID), call.role == .callee, call.phase == .inviting || call.phase == .ringing
        else { return false }
        core.respond(call.invite.response(status, toTag: call.localTag), to: nil, source: call.source, now: now)
        endCall(callID, .declined(status), core: core)
        return true
    }

    /// The ACK for a 2xx this end sent (the INVITE's or a re-INVITE's): stops that 2xx's retransmission (RFC 6026
    /// Accepted) and, the first time, reports the callee's call `.answered` (and sends the BYE its user asked for
    /// before it came). Repeated ACKs do nothing.
    func ackArrived(_ ack: SIPMessage, now: UInt64, core: some SIPCore) {
        guard let callID = ack.callID else { return }
        guard let call = call(callID), let key = call.awaitingAck else {
            // The ACK of a call a BYE ended first: its 2xx is retransmitted no more; the call stays ended.
            if calls[callID] == nil, let key = unacked.removeValue(forKey: callID) {
                core.acknowledged(ack, key: key, now: now)
            }
            return
        }
        let first = !call.acked && call.role == .callee
        let bye = call.byeOnAck
        call.awaitingAck = nil
        call.acked = true
        call.byeOnAck = false
        store(call, callID)
        core.acknowledged(ack, key: key, now: now)
        if first { core.report(.answered(call: callID)) }
        if bye, let id = call.dialog { sendInDialog(.bye, on: id, now: now, core: core) }
    }

    /// `.elsewhere` when `request` (a CANCEL or BYE) carries an RFC 3326 Reason saying another device answered or
    /// declined (a forking proxy's), else `otherwise`.
    static func endReason(_ request: SIPMessage, otherwise: SIPEndReason) -> SIPEndReason {
        guard let reason = SIPReason(request), reason.isElsewhere else { return otherwise }
        return .elsewhere(cause: reason.cause)
    }

    /// A CANCEL for an INVITE still unanswered (§9.2): 200 for the CANCEL, 487 for the INVITE, the call ended;
    /// 481 when no INVITE transaction of this agent's calls matches it.
    func incomingCancel(_ request: SIPMessage, source: Int, now: UInt64, core: some SIPCore) {
        let inviteKey = TransactionLayer.key(request.branch, .invite)
        guard let callID = request.callID, let call = call(callID), call.role == .callee,
              core.hasServer(inviteKey) else {
            core.counters.stray["CANCEL", default: 0] += 1
            core.respond(request.response(481), to: request, source: source, now: now)
            return
        }
        core.respond(request.response(200), to: request, source: source, now: now)
        guard call.phase == .inviting || call.phase == .ringing else { return }
        core.respond(call.invite.response(487, toTag: call.localTag), to: nil, source: call.source, now: now)
        endCall(callID, Self.endReason(request, otherwise: .cancelled), core: core)
    }
}
