import SIP

extension SIPUserAgent {
    func incomingInvite(_ request: SIPMessage, source: Int, key: TransactionKey, now: UInt64) {
        guard let callID = request.callID else { return }
        if request.toTag != nil {
            reinvite(request, source: source, now: now)
            return
        }
        if !addressesThisUser(request) {
            // Sent to another user's contact whose port this agent's socket now holds: a device that slept closed
            // its socket, and the kernel gave the port to this one. The proxy relays a parked INVITE to that stale
            // contact and waits for the woken device's REGISTER (docs/SIP.md); a phone gone from an address does
            // not answer there, so neither does this agent: a final response would end the caller's call for a
            // device that is about to take it, a failure of callstorm's own sockets, not of the server.
            counters.misdirected["INVITE", default: 0] += 1
            return
        }
        let tag = token()
        let offer = SDPSession(parsing: request.body)
        let port = 40_000 + Int(ids.random.next() % 10_000) * 2
        let sdp = offer.flatMap { SDPSession.answer(to: $0, address: localHost, port: port) }
            ?? SDPSession(address: localHost, port: port)
        let call = SIPCall(role: .callee, phase: .inviting, invite: request, localTag: tag, localSDP: sdp,
                           source: source)
        calls[callID] = call
        respond(request.response(100), to: request, source: source, now: now)
        events.append(.incoming(call: callID, from: request.from?.uri ?? ""))
        if autoRing { ring(callID, now: now) }
        if autoAnswer { answer(callID, now: now) }
    }

    /// Whether the request's Request-URI is this agent's user, or names no user (a request to the host alone).
    func addressesThisUser(_ request: SIPMessage) -> Bool {
        guard case .request(_, let uri) = request.startLine else { return true }
        let rest = uri.hasPrefix("sip:") ? uri.dropFirst(4) : uri.hasPrefix("sips:") ? uri.dropFirst(5) : Substring(uri)
        guard let at = rest.firstIndex(of: "@") else { return true }
        return rest[..<at] == account.user
    }

    /// Sends 180 Ringing for an incoming call.
    @discardableResult
    public func ring(_ callID: String, now: UInt64) -> Bool {
        guard var call = calls[callID], call.role == .callee, call.phase == .inviting else { return false }
        var response = call.invite.response(180, toTag: call.localTag)
        copyRecordRoute(call.invite, into: &response)
        response.addHeader(.contact, "<\(contactURI)>")
        call.phase = .ringing
        calls[callID] = call
        respond(response, source: call.source, now: now)
        return true
    }

    /// Answers an incoming call with 200 and the SDP answer; `.answered` follows its ACK.
    @discardableResult
    public func answer(_ callID: String, now: UInt64) -> Bool {
        guard var call = calls[callID], call.role == .callee, call.phase == .inviting || call.phase == .ringing
        else { return false }
        var response = call.invite.response(200, toTag: call.localTag)
        copyRecordRoute(call.invite, into: &response)
        response.addHeader(.contact, "<\(contactURI)>")
        response.addHeader(.contentType, "application/sdp")
        response.body = call.localSDP.body
        call.dialog = SIPDialog(uas: call.invite, localTag: call.localTag, state: .confirmed)
        call.phase = .confirmed
        call.awaitingAck = Self.key(call.invite.branch, .invite)
        calls[callID] = call
        respond(response, source: call.source, now: now)
        return true
    }

    /// A dialog-creating response carries the request's Record-Route (§12.1.1), so the caller routes its ACK, BYE
    /// and re-INVITEs through the same proxies.
    private func copyRecordRoute(_ request: SIPMessage, into response: inout SIPMessage) {
        for value in request.headers(.recordRoute) { response.addHeader(.recordRoute, value) }
    }

    /// Declines an incoming call: 486 Busy Here or 603 Decline.
    @discardableResult
    public func decline(_ callID: String, status: Int = 603, now: UInt64) -> Bool {
        guard let call = calls[callID], call.role == .callee, call.phase == .inviting || call.phase == .ringing
        else { return false }
        respond(call.invite.response(status, toTag: call.localTag), source: call.source, now: now)
        endCall(callID, .declined(status))
        return true
    }

    /// The ACK for a 2xx this end sent (the INVITE's or a re-INVITE's): stops that 2xx's retransmission (RFC 6026
    /// Accepted) and, the first time, confirms the callee's call. Repeated ACKs do nothing.
    func ackArrived(_ ack: SIPMessage, now: UInt64) {
        guard let callID = ack.callID, var call = calls[callID], let key = call.awaitingAck else { return }
        let first = !call.acked && call.role == .callee
        call.awaitingAck = nil
        call.acked = true
        calls[callID] = call
        if var t = servers[key], t.state == .accepted {
            let effects = t.receive(ack, now: now)
            servers[key] = t
            for effect in effects where effect == .terminated {
                servers[key] = nil
                serverSources[key] = nil
            }
        }
        if first { events.append(.answered(call: callID)) }
    }

    func incomingCancel(_ request: SIPMessage, source: Int, now: UInt64) {
        let inviteKey = Self.key(request.branch, .invite)
        guard let callID = request.callID, let call = calls[callID], call.role == .callee,
              servers[inviteKey] != nil else {
            counters.stray["CANCEL", default: 0] += 1
            respond(request.response(481), to: request, source: source, now: now)
            return
        }
        respond(request.response(200), to: request, source: source, now: now)
        guard call.phase == .inviting || call.phase == .ringing else { return }
        respond(call.invite.response(487, toTag: call.localTag), source: call.source, now: now)
        endCall(callID, .cancelled)
    }

    func incomingBye(_ request: SIPMessage, source: Int, now: UInt64) {
        guard let callID = request.callID, var call = calls[callID], var dialog = call.dialog,
              request.toTag == dialog.localTag else {
            counters.stray["BYE", default: 0] += 1
            respond(request.response(481), to: request, source: source, now: now)
            return
        }
        guard dialog.acceptRemote(request) else {
            respond(request.response(500), to: request, source: source, now: now)
            return
        }
        call.dialog = dialog
        calls[callID] = call
        respond(request.response(200), to: request, source: source, now: now)
        endCall(callID, .remoteBye)
    }

    private func reinvite(_ request: SIPMessage, source: Int, now: UInt64) {
        guard let callID = request.callID, var call = calls[callID], var dialog = call.dialog,
              request.toTag == dialog.localTag else {
            counters.stray["INVITE", default: 0] += 1
            respond(request.response(481), to: request, source: source, now: now)
            return
        }
        guard dialog.acceptRemote(request) else {
            respond(request.response(500), to: request, source: source, now: now)
            return
        }
        call.dialog = dialog
        calls[callID] = call
        if call.phase == .ending || call.pendingHold != nil {
            // This end sent a BYE (its session is over, §15: 481) or has a re-INVITE of its own out (glare, §14.2:
            // 491); the other end's transaction layer ACKs either.
            respond(request.response(call.phase == .ending ? 481 : 491), to: request, source: source, now: now)
            return
        }
        dialog.refreshTarget(from: request)
        guard let offer = SDPSession(parsing: request.body),
              var answer = SDPSession.answer(to: offer, address: localHost, port: call.localSDP.port) else {
            call.dialog = dialog
            calls[callID] = call
            respond(request.response(488), to: request, source: source, now: now)
            return
        }
        answer.version = call.localSDP.version + 1
        call.localSDP = answer
        call.dialog = dialog
        call.awaitingAck = Self.key(request.branch, .invite)
        calls[callID] = call
        var response = request.response(200)
        response.addHeader(.contact, "<\(contactURI)>")
        response.addHeader(.contentType, "application/sdp")
        response.body = answer.body
        respond(response, to: request, source: source, now: now)
        events.append(.hold(call: callID, held: offer.direction == .sendonly || offer.direction == .inactive))
    }
}
