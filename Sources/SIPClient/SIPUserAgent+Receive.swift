import SIP

extension SIPUserAgent {
    /// One UDP datagram from `source` (an opaque address handle the pool resolves back for responses).
    public func receive(datagram: [UInt8], source: Int, now: UInt64) {
        let message: SIPMessage
        do {
            message = try SIPParser.parse(datagram: datagram)
        } catch {
            counters.malformed[error.kind, default: 0] += 1
            return
        }
        receive(message, source: source, now: now)
    }

    /// A stream parser's error: counted; the pool closes the connection.
    public func streamFailed(_ error: SIPParseError) {
        counters.malformed[error.kind, default: 0] += 1
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
        } else {
            let key = Self.key(message.branch, message.cseq?.method)
            guard var t = clients[key] else {
                strayResponse(message)
                return
            }
            // A 2xx again in Accepted is the peer's retransmission (its ACK is re-sent), as is a response that
            // a finished transaction absorbs: the books count it apart from the responses themselves.
            let repeated = t.state == .accepted && (message.status ?? 0) / 100 == 2
            let effects = t.receive(message, now: now)
            clients[key] = t
            if effects.isEmpty || repeated {
                counters.retransmissionsReceived[Self.label(message), default: 0] += 1
            } else {
                counters.responsesReceived[message.status ?? 0, default: 0] += 1
                note(message, sent: false)
            }
            apply(effects, source: nil, key: key, now: now)
        }
    }

    /// A 2xx to an INVITE whose transaction has ended still needs its ACK again (§13.2.2.4).
    private func strayResponse(_ message: SIPMessage) {
        if let status = message.status, status / 100 == 2, message.cseq?.method == .invite,
           let callID = message.callID, let call = calls[callID], let dialog = call.dialog {
            counters.retransmissionsReceived[Self.label(message), default: 0] += 1
            sendACK(dialog, cseq: message.cseq?.number ?? 0, retransmission: true)
            return
        }
        counters.stray[Self.label(message), default: 0] += 1
    }

    private func requestArrived(_ request: SIPMessage, source: Int, now: UInt64) {
        let method = request.method ?? .options
        let key = Self.key(request.branch, method == .ack ? .invite : method)
        if var t = servers[key] {
            if method == .ack {
                counters.requestsReceived[method.rawValue, default: 0] += 1
                note(request, sent: false)
            } else {
                counters.retransmissionsReceived[method.rawValue, default: 0] += 1
            }
            let effects = t.receive(request, now: now)
            servers[key] = t
            apply(effects, source: source, key: key, now: now)
            return
        }
        counters.requestsReceived[method.rawValue, default: 0] += 1
        note(request, sent: false)
        switch method {
        case .ack:
            ackArrived(request, now: now)
        case .invite:
            incomingInvite(request, source: source, key: key, now: now)
        case .cancel:
            incomingCancel(request, source: source, now: now)
        case .bye:
            incomingBye(request, source: source, now: now)
        case .options:
            respond(request.response(200), source: source, now: now)
        default:
            var response = request.response(501)
            response.addHeader(.allow, "INVITE, ACK, CANCEL, BYE, OPTIONS")
            respond(response, source: source, now: now)
        }
    }

    /// Answers `request` through a new server transaction (or the one it already has).
    func respond(_ response: SIPMessage, to request: SIPMessage? = nil, source: Int, now: UInt64) {
        var response = response
        response.keepFields()  // the key and the history label read them
        let key = Self.key(response.branch, response.cseq?.method)
        var t = servers[key] ?? ServerTransaction(request: request ?? response, timers: timers)
        serverSources[key] = source
        let effects = t.respond(response, now: now)
        servers[key] = t
        apply(effects, source: source, key: key, now: now)
    }
}
