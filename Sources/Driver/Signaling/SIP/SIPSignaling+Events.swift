import CallModel
import Metrics
import SIPClient

/// What the agents hear, turned into answers to the actions waiting on it and observations for the flows.
extension SIPSignaling {
    func event(_ agent: Int, _ event: SIPEvent) {
        guard let local = agents.device[agent] else { return }
        let now = self.now
        switch event {
        case .registered: registered(local, ok: true)
        case .registrationFailed(let status): registered(local, ok: false, status: status)
        case .incoming(let callID, let from):
            incoming(local, callID: callID, caller: callerHandle(from), agent: agent, now: now)
        case .progress(let callID, let status):
            let key = Self.legKey(local, callID)
            guard let leg = legs[key], leg.caller else { return }
            if status > 100 { dialog(local, callID, .early) }
            if status == 180, !leg.rang {
                legs.update(key) { $0.rang = true }
                books.record(.postDialDelay, micros: Int64((now &- leg.inviteSent) / 1000), at: now)
            }
            fulfil(key, .start, conversation: callID)
        case .answered(let callID): answered(local, callID: callID, now: now)
        case .hold(let callID, let held):
            let key = Self.legKey(local, callID)
            // This device's own re-INVITE was answered (a hold the other side asked for leaves its state alone).
            // Read and cleared in one lookup (`legs[key]?.holdAsked` read a copy of the leg, and its setter searched
            // the device's row again).
            var answered = false
            legs.update(key) { leg in
                guard let asked = leg.holdAsked, asked == held else { return }
                leg.holdAsked = nil
                answered = true
            }
            if answered {
                dialog(local, callID, held ? .held : .confirmed)
            }
            updateMedia(local, callID: callID)
            fulfil(key, held ? .pause : .resume)
        case .ended(let callID, let reason): ended(local, callID: callID, reason: reason, now: now)
        case .failed(let callID, let status): failed(local, callID: callID, status: status, now: now)
        case .settled(let callID):
            let key = Self.legKey(local, callID)
            if let leg = cancelling.removeValue(forKey: key) {
                dialogEnded(local, callID, leg: leg, reason: "cancelled")
                afterCall(local)
            }
        case .transportFailed(let cause): transportFailed(local, cause: cause)
        case .connected(let at): wakeStage(local, .wakeConnect, at: at)
        case .transportReady(let at): wakeStage(local, .wakeHandshake, at: at)
        case .flow(let step): flowRecovery(local, step)
        }
    }

    /// The device's connection failed before carrying SIP (its TLS handshake: the registrar's certificate is not
    /// from `target.sip.ca`, or the handshake broke). Its REGISTER can never be answered, so it fails now, by name
    /// (`sip.registration.failed_tls_certificate`, `devices.register_failed` for a first one), and its agent is
    /// closed: a later wake or call opens a new connection and is counted again.
    func transportFailed(_ local: Int, cause: String) {
        let now = self.now
        let why = cause == "tls_certificate" ? "the registrar's TLS certificate is not trusted (target.sip.ca)"
            : cause == "ws_handshake" ? "the registrar refused its WebSocket Upgrade (is the port a ws/wss listener?)"
            : "its TLS handshake with the registrar failed"
        books.note("SIP device \(table.devices[local].identity.id): \(why) [\(cause)]", limit: 5)
        let entry = agents.registering.removeValue(forKey: local)
        if let agent = agents.agent.removeValue(forKey: local) {
            agents.device[agent] = nil
            pool.close(agent)
        }
        guard let entry else { return }
        books.count(.sipRegistration("failed_\(cause)"), at: now)
        if entry.initial { books.count(.devicesRegisterFailed, at: now) }
        entry.then?()
    }

    /// An INVITE reached the device: reported to the system like a VoIP push (unless the push that woke the
    /// device already reported it), and the device's call hears of it.
    private func incoming(_ local: Int, callID: String, caller: Handle?, agent: Int, now: UInt64) {
        let key = Self.legKey(local, callID)
        if table.devices[local].callID == nil {
            host.apply(.takeOutside(device: local, conversation: callID, now: now))
        }
        guard let id = table.devices[local].callID, table.has(id) else {
            // No call of ours expects this device to ring (a stray or late INVITE): busy.
            books.count(.pushesUnexpected, at: now)
            pool.perform(agent) { $0.decline(callID, status: 486, now: $1) }
            return
        }
        guard callExpects(id, callID, on: local) else {
            return callWaiting(local, callID: callID, caller: caller, agent: agent, now: now)
        }
        legs[key] = Leg(call: id, caller: false)
        dialog(local, callID, .early)  // it rang at once (autoRing): 180 with its To tag
        if wokeFor(local, callID: callID, now: now) {
            releaseHeld(key)
            return
        }
        host.apply(.ring(device: local, PushPayload(uuid: callID, caller: caller), conversation: callID,
                         acceptedNanos: now, now: now))
    }

    /// The caller's 2xx, or the ACK of the callee's. The callee's dialog was confirmed, and its join fulfilled, at
    /// its 2xx (`perform`): its ACK only measures (and fulfils the join with `device.join_at: ack`), and lets the
    /// hold re-INVITE a hold-and-accept asked for go.
    private func answered(_ local: Int, callID: String, now: UInt64) {
        let key = Self.legKey(local, callID)
        guard let leg = legs[key] else { return cancelledAnswered(local, callID) }
        legs.update(key) { $0.confirmed = true }
        if leg.holdOnAck { sendHoldOnAck(local, callID) }  // held before its ACK came: it stays held
        guard leg.caller else {
            if leg.answerSent > 0 {
                books.record(.answerToAck, micros: Int64((now &- leg.answerSent) / 1000), at: now)
            }
            if spec.joinAtAck { fulfil(key, .join) }
            return
        }
        if !leg.holdOnAck {
            if let agent = agents.agent[local] { holdOthers(local, answering: callID, agent: agent) }
            dialog(local, callID, .confirmed)
        }
        books.record(.setupTime, micros: Int64((now &- leg.inviteSent) / 1000), at: now)
        startMedia(local, callID: callID)  // RFC 3264 §5.1: the offerer sends once it has the answer
        fulfil(key, .start, conversation: callID)
        host.apply(.observe(PushPayload(uuid: callID, event: "joined"), device: local, channel: .sip,
                            call: leg.call, now: now))
    }

    private func ended(_ local: Int, callID: String, reason: SIPEndReason, now: UInt64) {
        let key = Self.legKey(local, callID)
        guard let leg = legs.removeValue(forKey: key) else {
            // The BYE that ended an answer which crossed this device's CANCEL.
            if let leg = cancelling.removeValue(forKey: key) {
                dialogEnded(local, callID, leg: leg, reason: Self.endReason(reason))
                afterCall(local)
            }
            return
        }
        if reason == .cancelled, leg.caller {
            // Its line waits until a 2xx crossing the CANCEL is no longer possible (`.settled`) or came.
            cancelling[key] = leg
        } else {
            dialogEnded(local, callID, leg: leg, reason: Self.endReason(reason))
        }
        if leg.caller, !wake.inviteSent.isEmpty { wake.inviteSent[callID] = nil }  // hashed only with sleepers
        switch reason {
        case .localBye: fulfil(key, .end)
        case .declined: fulfil(key, .decline, or: .end)
        case .cancelled where leg.caller: fulfil(key, .end)
        case .elsewhere(let cause):
            // A forking proxy's CANCEL (or the caller's BYE of a second answer) with RFC 3326 Reason: another
            // device of this user answered (200) or declined (6xx).
            observeEnd(local, callID: callID, reason: cause == 200 ? "joinedElsewhere" : "declinedElsewhere",
                       now: now, call: leg.call)
        case .cancelled, .remoteBye, .timedOut:
            // The other side ended it (or the dialog died): this device sees the conversation end.
            observeEnd(local, callID: callID, reason: reason == .cancelled ? "unanswered" : nil, now: now,
                       call: leg.call)
        }
        if let p = settle(key) {
            var answer = ActionAnswer(outcome: .failed(reason: FlowInterpreter.alreadyEnded))
            answer.alreadyEnded = p.request.kind == .end
            tell(p.request, answer)
        }
        afterCall(local)
    }

    private func failed(_ local: Int, callID: String, status: Int, now: UInt64) {
        let key = Self.legKey(local, callID)
        guard let leg = legs[key] else { return }
        if leg.caller, !leg.confirmed {
            // A final non-2xx before any answer: the call knows its status before its device sees it end, so a
            // refusal its flow does not declare fails it, named by the status (issue 32).
            host.tell(leg.call, now: now) { $0.refused(status: status, now: now, &$1) }
        }
        // The op read in place: `pending[key]` copied the whole request out.
        if let op = pending.read(key, { $0.request.op }), op == .start || op == .pause || op == .resume
            || !leg.confirmed {
            fail(key, status: status)
        }
        guard !leg.confirmed else { return }
        // The INVITE failed (declined, busy, unreachable): the call is over for the caller. Its dialog line says
        // so even when nothing rang before (no line yet): the checker judges every end.
        legs[key] = nil
        dialogEnded(local, callID, leg: leg, reason: "failed_\(status)")
        if leg.caller, !wake.inviteSent.isEmpty { wake.inviteSent[callID] = nil }  // hashed only with sleepers
        observeEnd(local, callID: callID, reason: Self.unansweredStatuses.contains(status) ? "unanswered" : "failed",
                   now: now, call: leg.call)
        afterCall(local)
    }

    /// Final statuses that say nobody took the call (no answer in time, nobody there, the caller's own CANCEL, a
    /// decline): LiveCommunicationKit's `unanswered`; any other refusal (486 Busy Here, 404, 5xx) is `failed`.
    static let unansweredStatuses: Set<Int> = [408, 480, 487, 600, 603]

    /// The handle of the device a From URI names (`sip:dev-<index>@…`, one of this run's devices), as the
    /// system shows the caller; nil for a caller callstorm does not simulate.
    ///
    /// Read over the bytes, with the run's handle book made once (`handleBook`): a Foundation search, a
    /// `DeviceIdentity` (its APNs token hashed) and a new `HandleBook` per incoming call were ~25,000 instructions.
    func callerHandle(_ from: String) -> Handle? {
        if settings.scenario.users != nil { return userHandle(from) }
        guard let index = Self.deviceIndex(inURI: from), index < settings.devices else { return nil }
        return handleBook.handle(index: index)
    }

    /// N of the first `sip:dev-N` up to the first character that is not a number, read over the bytes; the few
    /// texts the bytes cannot settle (a non-ASCII character after the digits, more than 18 digits) are read as
    /// Characters, as before.
    static func deviceIndex(inURI text: String) -> Int? {
        var text = text
        text.makeContiguousUTF8()
        switch text.utf8.withContiguousStorageIfAvailable({ asciiDeviceIndex($0) }) {
        case .index(let index)?: return index
        case .none?: return nil
        case .unsettled?, nil:
            guard let start = text.range(of: "sip:dev-")?.upperBound,
                  let end = text[start...].firstIndex(where: { !$0.isNumber }) else { return nil }
            return Int(text[start..<end])
        }
    }

    private enum ByteReading { case index(Int), none, unsettled }

    private static func asciiDeviceIndex(_ bytes: UnsafeBufferPointer<UInt8>) -> ByteReading {
        let prefix: [UInt8] = Array("sip:dev-".utf8)
        var start = 0
        while start + prefix.count <= bytes.count, !bytes[start..<start + prefix.count].elementsEqual(prefix) {
            start += 1
        }
        let first = start + prefix.count
        guard first <= bytes.count else { return .none }
        var i = first, value = 0
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            guard i - first < 18 else { return .unsettled }
            value = value * 10 + Int(bytes[i] - 0x30)
            i += 1
        }
        guard i < bytes.count else { return .none }  // the digits end the text: no end found
        guard bytes[i] < 0x80 else { return .unsettled }
        return i > first ? .index(value) : .none
    }

    func observeEnd(_ local: Int, callID: String, reason: String?, now: UInt64, call: Int) {
        host.apply(.observe(PushPayload(uuid: callID, event: "ended", reason: reason), device: local,
                            channel: .sip, call: call, now: now))
    }
}
