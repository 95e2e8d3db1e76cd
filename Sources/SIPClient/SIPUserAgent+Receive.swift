import SIP

extension SIPUserAgent {
    /// One UDP datagram from `source` (an opaque address handle the pool resolves back for responses).
    public func receive(datagram: [UInt8], source: Int, now: UInt64) {
        datagram.withUnsafeBufferPointer { receive(datagram: $0, source: source, now: now) }
    }

    /// One UDP datagram read where it lies (the pool's read buffer): parsed, nothing kept of the bytes.
    public func receive(datagram: UnsafeBufferPointer<UInt8>, source: Int, now: UInt64) {
        receive(parsed: parse(datagram: datagram), source: source, now: now)
    }

    /// `receive(datagram:)`'s first half: the datagram read into a message with this agent's string cache. The
    /// shared socket parses a whole read's datagrams this way before any reaches its agent, so the parser's code
    /// stays hot over the batch (`SIPClientPool+SharedBatch`).
    func parse(datagram: UnsafeBufferPointer<UInt8>) -> Result<SIPMessage, SIPParseError> {
        do {
            return .success(try SIPParser.parse(datagram: datagram, strings: ids.strings))
        } catch {
            return .failure(error)
        }
    }

    /// `receive(datagram:)`'s second half: a message parsed from a datagram goes on as any; one that could not be
    /// is counted by kind and dropped.
    func receive(parsed: Result<SIPMessage, SIPParseError>, source: Int, now: UInt64) {
        switch parsed {
        case .success(let message): receive(message, source: source, now: now)
        case .failure(let error): counters.malformed[error.kind, default: 0] += 1
        }
    }

    /// A stream parser's error: counted; the pool closes the connection.
    public func streamFailed(_ error: SIPParseError) {
        counters.malformed[error.kind, default: 0] += 1
    }

    /// Its connection to the proxy failed before carrying SIP (`SIPCounters.transportFailures`); reported at once,
    /// so the device fails by name instead of waiting out its REGISTER's Timer F.
    func transportFailed(_ cause: String) {
        counters.transportFailures[cause, default: 0] += 1
        report(.transportFailed(cause: cause))
    }

    /// Its connection reached a stage (`.connected`, `.transportReady`; other events are ignored here): told to the
    /// owner with the agent's next events. The pools call it; the twin, whose connections are memory, at once.
    public func transportReached(_ stage: SIPEvent) {
        switch stage {
        case .connected, .transportReady: report(stage)
        default: break
        }
    }

    /// One whole message (from a datagram or a TCP stream). A request that breaks §8.1.1 is answered 400 when it
    /// has a Via to answer along (never an ACK); anything else malformed is dropped. Both are counted by kind.
    public func receive(_ message: SIPMessage, source: Int, now: UInt64) {
        do {
            try SIPParser.validate(message)
        } catch {
            counters.malformed[error.kind, default: 0] += 1
            if message.isRequest, message.method != .ack, message.via != nil {
                send(message.response(400, error.description), to: .source(source))
            }
            return
        }
        if message.isRequest {
            requestArrived(message, source: source, now: now)
            return
        }
        guard let (key, effects, absorbed) = transactions.receive(response: message, now: now) else {
            strayResponse(message, now: now)
            return
        }
        if absorbed {
            counters.retransmissionsReceived[Self.label(message), default: 0] += 1
        } else {
            tally.responseReceived(message.status ?? 0)
            note(message, sent: false)
        }
        apply(effects, source: nil, key: key, now: now)
    }

    /// A response no transaction has: a 2xx to an INVITE whose transaction has ended still needs its ACK again
    /// (§13.2.2.4), which its dialog sends; anything else is stray.
    private func strayResponse(_ message: SIPMessage, now: UInt64) {
        if let status = message.status, status / 100 == 2, message.cseq?.method == .invite,
           let callID = message.callID, sessions.abandoned[callID] != nil {
            // The INVITE this agent cancelled ended 487 and its transaction is gone (TCP's Timer D is 0): the 2xx
            // that crossed the CANCEL still gets its ACK and BYE.
            tally.responseReceived(status)
            note(message, sent: false)
            sessions.receive(message, now: now, core: self)
            return
        }
        if let status = message.status, status / 100 == 2, message.cseq?.method == .invite,
           let callID = message.callID, let call = sessions.call(callID), let id = call.dialog,
           sessions.dialogs.contains(id) {
            counters.retransmissionsReceived[Self.label(message), default: 0] += 1
            sessions.answeredAgain(message, call: call, now: now, core: self)
            return
        }
        counters.stray[Self.label(message), default: 0] += 1
    }

    /// A request: to its server transaction when it has one (a retransmission, the ACK of a non-2xx), else to
    /// the layer its method belongs to.
    private func requestArrived(_ request: SIPMessage, source: Int, now: UInt64) {
        let method = request.method ?? .options
        if let (key, effects) = transactions.receive(request: request, now: now) {
            if method == .ack {
                tally.requestReceived(method)
                note(request, sent: false)
            } else {
                counters.retransmissionsReceived[method.rawValue, default: 0] += 1
            }
            apply(effects, source: source, key: key, now: now)
            return
        }
        tally.requestReceived(method)
        note(request, sent: false)
        switch method {
        case .ack:
            sessions.ackArrived(request, now: now, core: self)
        case .invite:
            sessions.incomingInvite(request, source: source, now: now, core: self)
        case .cancel:
            sessions.incomingCancel(request, source: source, now: now, core: self)
        case .bye:
            sessions.incomingBye(request, source: source, now: now, core: self)
        case .options:
            respond(request.response(200), to: nil, source: source, now: now)
        default:
            var response = request.response(501)
            response.addHeader(.allow, "INVITE, ACK, CANCEL, BYE, OPTIONS")
            respond(response, to: nil, source: source, now: now)
        }
    }

    // MARK: - Carrying out the transactions' effects

    /// Carries out a transaction's effects: sends, responses and ACKs for the layer above, timeouts, forgetting.
    func apply(_ effects: [TransactionEffect], source: Int?, key: TransactionKey, now: UInt64) {
        for effect in effects {
            switch effect {
            case .send(let message, let again):
                send(message, to: message.isRequest ? .proxy : source.map(Destination.source) ?? .proxy,
                     retransmission: again)
            case .deliver(let message):
                if message.isRequest {
                    sessions.ackArrived(message, now: now, core: self)
                } else if message.cseq?.method == .register {
                    registration.receive(message, now: now, core: self)
                } else {
                    sessions.receive(message, now: now, core: self)
                }
            case .timedOut(let timer):
                counters.timeouts[timer.rawValue.uppercased(), default: 0] += 1
                guard let request = transactions.request(key), request.callID != nil else { continue }
                if request.method == .register {
                    registration.timedOut(core: self)
                } else {
                    sessions.timedOut(request, timer: timer, now: now, core: self)
                }
            case .terminated:
                transactions.forget(key)
            }
        }
    }

    func send(_ message: SIPMessage, to destination: Destination, retransmission: Bool = false) {
        if let method = message.method {
            tally.requestSent(method, retransmission ? 0 : 1)
        } else if let status = message.status {
            tally.responseSent(status, retransmission ? 0 : 1)
        }
        if retransmission { counters.retransmissionsSent[Self.label(message), default: 0] += 1 }
        if !retransmission { note(message, sent: true) }
        mail.outbox.append((message.serialized(), destination))
    }

    /// Tells `onMessage` of a message with a Call-ID.
    private func note(_ message: SIPMessage, sent: Bool) {
        guard let onMessage, let callID = message.callID else { return }
        onMessage(callID, sent, message)
    }

    /// A message's counter key: its method or status code.
    static func label(_ message: SIPMessage) -> String {
        message.method?.rawValue ?? message.status.map(String.init) ?? "?"
    }
}

extension SIPUserAgent: SIPCore {
    func startClient(_ request: SIPMessage, now: UInt64) {
        var request = request
        if let header = requestHeader?(request) { request.addHeader(SIPHeaderName(header.name), header.value) }
        let (key, effects) = transactions.start(request, now: now)
        ids.strings.note(key.branch)  // its responses carry both back
        ids.strings.note(request.callID)
        apply(effects, source: nil, key: key, now: now)
    }

    func respond(_ response: SIPMessage, to request: SIPMessage?, source: Int, now: UInt64) {
        let (key, effects) = transactions.respond(response, to: request, source: source, now: now)
        apply(effects, source: source, key: key, now: now)
    }

    func sendACK(_ ack: SIPMessage, retransmission: Bool) { send(ack, to: .proxy, retransmission: retransmission) }

    func hasServer(_ key: TransactionKey) -> Bool { transactions.hasServer(key) }

    func acknowledged(_ ack: SIPMessage, key: TransactionKey, now: UInt64) {
        transactions.acknowledged(ack, key: key, now: now)
    }

    func report(_ event: SIPEvent) { mail.events.append(event) }
}
