import SIP
import SIPClient

/// A request the twin relays statefully (tm): the upstream request and its server transaction, its branches, and
/// for an INVITE the final-response timer and whether it waits for its user's wake REGISTER.
struct SIPTwinRelay {
    let request: SIPMessage
    let upstream: SIPEndpoint
    /// Nil once it terminated (the relay stays, to forward late 2xx repeats).
    var server: ServerTransaction?
    var branches: [TwinKey] = []
    /// fr_timer / fr_inv_timer: when it gives up with 408; nil once a final answer went upstream.
    var deadline: UInt64?
    /// fr_inv_timer's length once a branch rang (the push timeout on the push path).
    var answerNanos: UInt64
    /// A final answer (or a 2xx) went upstream.
    var finished = false
    /// Parked for a wake REGISTER: `.append` (UDP, tsilo) or `.suspended` (TCP, t_suspend).
    var park: SIPTwinPark?
    var cancelled = false
    /// With `fork`: sleeping bindings whose parking branch still holds the transaction open (until the push
    /// timeout, or the call's end).
    var parks = 0
}

enum SIPTwinPark { case append, suspended }

/// One branch of a relayed request: where it went and its client transaction.
struct SIPTwinBranch {
    let upstream: TwinKey
    let to: SIPEndpoint
    /// Nil once it terminated.
    var client: ClientTransaction?
    var request: SIPMessage
    var rang = false
    /// How it ended (0 for a CANCEL's own branch); `answer` the final response, nil for a local end.
    var final: Int?
    var answer: SIPMessage?
    /// Stopped unanswered (a CANCEL or the final timer): a provisional it sends later gets a CANCEL, with
    /// `cancelReason` when another branch's answer stopped it.
    var cancelOnRing = false
    var cancelReason: SIPReason?
}

extension SIPTwinProxy {
    /// A new request outside a dialog (INVITE, or another method to a user): looked up and relayed.
    func initial(_ request: SIPMessage, key: TwinKey, from: SIPEndpoint, now: UInt64) {
        relays[key] = SIPTwinRelay(request: request, upstream: from,
                                 server: ServerTransaction(request: request,
                                                           timers: SIPTimerValues(reliable: from.transport.isStream)),
                                 deadline: now + configuration.finalResponseNanos,
                                 answerNanos: configuration.inviteAnswerNanos)
        if request.method == .invite { respond(key, request.response(100), now: now) }
        guard let user = Self.user(of: request.requestURI ?? "") else {
            return replyOwn(key, 484, "Address Incomplete", now: now)
        }
        if request.method == .invite, configuration.fork { return forkRoute(key, user: user, now: now) }
        guard let binding = binding(of: user) else { return replyOwn(key, 404, now: now) }
        if request.method == .invite, let push = configuration.push, let parameters = binding.push {
            relays[key]?.deadline = now + push.timeoutNanos
            relays[key]?.answerNanos = push.timeoutNanos
            return pushRoute(key, user: user, binding: binding, parameters: parameters, now: now)
        }
        if !relayBranch(key, to: binding.contact, now: now) { replyOwn(key, 477, now: now) }
    }

    /// A request inside a dialog (it has a To tag), loose-routed to its Request-URI.
    func inDialog(_ request: SIPMessage, key: TwinKey, from: SIPEndpoint, now: UInt64) {
        guard let uri = request.requestURI, Self.user(of: uri) != nil else {
            return reply(request.response(404, "Not here"), over: from.transport, to: from)
        }
        relays[key] = SIPTwinRelay(request: request, upstream: from,
                                   server: ServerTransaction(request: request,
                                                             timers: SIPTimerValues(reliable: from.transport.isStream)),
                                   deadline: now + configuration.finalResponseNanos,
                                   answerNanos: configuration.inviteAnswerNanos)
        if request.method == .invite { respond(key, request.response(100), now: now) }
        if !relayBranch(key, to: uri, now: now) { replyOwn(key, 477, now: now) }
    }

    /// An ACK: the one for a negative final answer the proxy sent is absorbed by its transaction; an ACK for a 2xx
    /// (a new transaction inside the dialog) is forwarded statelessly to its Request-URI.
    func ack(_ ack: SIPMessage, key: TwinKey, from: SIPEndpoint, now: UInt64) {
        if var server = relays[key]?.server {
            let effects = server.receive(ack, now: now)
            relays[key]?.server = server
            applyServer(effects, key: key)
            return
        }
        guard ack.toTag != nil, let uri = ack.requestURI, let to = Self.endpoint(of: uri) else { return }
        var forwarded = ack
        forwarded.removeHeaders(.route)
        forwarded.insertHeader("Via", via(to.transport, branch: "z9hG4bK" + token()), at: 0)
        send(forwarded, over: to.transport, to: to)
    }

    /// A request repeated by its sender: the transaction answers it again with its last response.
    func retransmitted(_ request: SIPMessage, key: TwinKey, now: UInt64) {
        guard var server = relays[key]?.server else { return }
        let effects = server.receive(request, now: now)
        relays[key]?.server = server
        applyServer(effects, key: key)
    }

    /// A CANCEL: answered 200 and passed to the branches that rang; an INVITE no branch answered yet ends 487 now.
    func cancel(_ cancel: SIPMessage, from: SIPEndpoint, now: UInt64) {
        let key = TwinKey(cancel.branch, .invite)
        guard var relay = relays[key] else { return }  // t_check_trans found nothing: dropped
        reply(cancel.response(200), over: from.transport, to: from)
        guard !relay.finished, !relay.cancelled else { return }
        relay.cancelled = true
        relay.parks = 0  // the parking branches end with the call
        relays[key] = relay
        unpark(key)
        var waiting = false
        for branchKey in relay.branches {
            guard let branch = branches[branchKey], branch.final == nil else { continue }
            if branch.rang {
                cancelBranch(branchKey)
                waiting = true
            } else {
                stopBranch(branchKey)
            }
        }
        if !waiting { replyOwn(key, 487, now: now) }
    }

    // MARK: - Branches

    /// Relays the request of `key` to `uri`; false when the send is refused at once: a TCP connection that is gone,
    /// or a UDP port nothing listens on (the ICMP error Kamailio's send reports on the loopback: the cfg's STALE
    /// comment).
    @discardableResult
    func relayBranch(_ key: TwinKey, to uri: String, now: UInt64) -> Bool {
        guard let relay = relays[key], let to = Self.endpoint(of: uri), network.isBound(to) else { return false }
        var request = relay.request
        request.startLine = .request(method: relay.request.method ?? .invite, uri: uri)
        if request.toTag == nil {
            request.removeHeaders(.route)
            if request.method == .invite {
                request.insertHeader("Record-Route", "<sip:\(configuration.host):\(configuration.port);lr>", at: 0)
            }
        } else {
            request.removeHeaders(.route)  // loose_route: the Route naming this proxy is used up
        }
        let branch = "z9hG4bK" + token()
        request.insertHeader("Via", via(to.transport, branch: branch), at: 0)
        request.keepFields()
        let branchKey = TwinKey(branch, relay.request.method ?? .invite)
        let timers = SIPTimerValues(reliable: to.transport.isStream)
        let (client, effects) = ClientTransaction.start(request, timers: timers, now: now)
        branches[branchKey] = SIPTwinBranch(upstream: key, to: to, client: client, request: request)
        relays[key]?.branches.append(branchKey)
        applyClient(effects, key: branchKey, now: now)
        return true
    }

    func via(_ transport: SIPTransportKind, branch: String) -> String {
        SIPVia(transport: transport.rawValue, sentBy: "\(configuration.host):\(configuration.port)", branch: branch,
               rport: false).text
    }

    /// Sends a CANCEL down a branch that rang (§9.1: only then), with `reason` (RFC 3326) when tm would add one:
    /// another branch's 2xx or 6xx ended it (`local_cancel_reason`).
    func cancelBranch(_ key: TwinKey, reason: SIPReason? = nil) {
        guard let branch = branches[key] else { return }
        var cancel = SIPMessage.request(.cancel, uri: branch.request.requestURI ?? "")
        for name in [SIPHeaderName.via, .from, .to, .callID] {
            if let value = branch.request.header(name) { cancel.addHeader(name, value) }
        }
        cancel.addHeader(.maxForwards, "70")
        cancel.addHeader(.cseq, SIPCSeq(branch.request.cseq?.number ?? 1, .cancel).text)
        if let reason { cancel.addHeader(SIPReason.header, reason.value) }
        cancel.keepFields()
        let now = network.clock.nowNanos()
        let timers = SIPTimerValues(reliable: branch.to.transport.isStream)
        let (client, effects) = ClientTransaction.start(cancel, timers: timers, now: now)
        let cancelKey = TwinKey(key.branch, .cancel)
        branches[cancelKey] = SIPTwinBranch(upstream: branch.upstream, to: branch.to, client: client, request: cancel,
                                            final: 0)
        applyClient(effects, key: cancelKey, now: now)
    }

    /// Stops a branch that never answered: no retransmission more, counted as ended, and CANCELled should it ring
    /// after all (tm's default `cancel_b_method`).
    func stopBranch(_ key: TwinKey, reason: SIPReason? = nil) {
        branches[key]?.client = nil
        branches[key]?.final = 487
        branches[key]?.cancelOnRing = true
        branches[key]?.cancelReason = reason
    }

    func applyClient(_ effects: [TransactionEffect], key: TwinKey, now: UInt64) {
        for effect in effects {
            switch effect {
            case .send(let message, _):
                guard let to = branches[key]?.to else { continue }
                send(message, over: to.transport, to: to)
            case .deliver(let response):
                branchAnswered(key, response, now: now)
            case .timedOut:
                branchEnded(key, status: 408, response: nil, now: now)
            case .terminated:
                branches[key]?.client = nil
            }
        }
    }

    func applyServer(_ effects: [TransactionEffect], key: TwinKey) {
        for effect in effects {
            switch effect {
            case .send(let message, _):
                guard let to = relays[key]?.upstream else { continue }
                send(message, over: to.transport, to: to)
            case .terminated:
                relays[key]?.server = nil
            case .deliver, .timedOut:
                break
            }
        }
    }

    /// Sends `response` upstream through the relay's server transaction (a final one ends the relay's timer and
    /// its park; a second final one is not sent).
    func respond(_ key: TwinKey, _ response: SIPMessage, now: UInt64) {
        guard var server = relays[key]?.server else { return }
        var response = response
        response.keepFields()
        if let status = response.status, status >= 200 {
            guard relays[key]?.finished == false else { return }
            if relays[key]?.request.method == .invite { forkEnded(key, status: status) }
            relays[key]?.finished = true
            relays[key]?.deadline = nil
            unpark(key)
        }
        let effects = server.respond(response, now: now)
        relays[key]?.server = server
        applyServer(effects, key: key)
    }

    /// A final response the proxy makes itself (404, 408, 477, 480, 487, …), counted in `stats.replied`.
    func replyOwn(_ key: TwinKey, _ status: Int, _ reason: String? = nil, now: UInt64) {
        guard let relay = relays[key], !relay.finished else { return }
        stats.replied[status, default: 0] += 1
        respond(key, relay.request.response(status, reason, toTag: status >= 200 ? token() : nil), now: now)
    }
}
