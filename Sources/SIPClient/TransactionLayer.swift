import SIP

/// One agent's transaction layer (RFC 3261 §17, PJSIP's `sip_transaction.c`, libre's `sip/ctrans.c` and
/// `strans.c`): the client and server transactions in flight and how a message finds its own. A value without
/// I/O: messages and the time go in, each transaction's effects come out with its key for the agent to carry out
/// (send, deliver to the layer above, time out, forget).
///
/// Matching: a response by its top Via branch and CSeq method (§17.1.3: a CANCEL shares its INVITE's branch, so
/// the method tells them apart); a request by its top Via branch and method, an ACK by its INVITE's (§17.2.3;
/// the ACK of a 2xx has a branch of its own and matches nothing here: the dialog finds it). Only RFC 3261
/// branches (`z9hG4bK…`) are issued by this agent; requests from others are matched by branch as they come.
struct TransactionLayer {
    let timers: SIPTimerValues
    /// The transactions in flight, a few per agent: `AgentTable`s, scanned rather than hashed.
    private(set) var clients = AgentTable<TransactionKey, ClientTransaction>()
    private(set) var servers = AgentTable<TransactionKey, ServerTransaction>()
    /// Where each server transaction's responses go (the handle of the request's sender).
    private var sources = AgentTable<TransactionKey, Int>()
    /// `nextDeadline` as last computed, until a mutating method runs (every change of a transaction goes through
    /// one): the pool asks after every datagram, and the walk over both tables was ~8 k instructions a call.
    private var knownNext: (valid: Bool, due: UInt64?) = (false, nil)

    init(timers: SIPTimerValues) { self.timers = timers }

    /// A transaction's key from its top Via branch and method.
    static func key(_ branch: String?, _ method: SIPMethod?) -> TransactionKey {
        TransactionKey(branch: branch ?? "", method: method?.rawValue ?? "")
    }

    /// The key of the client transaction a response belongs to (§17.1.3).
    static func clientKey(of response: SIPMessage) -> TransactionKey { key(response.branch, response.cseq?.method) }

    /// The key of the server transaction a request belongs to (§17.2.3): an ACK's is its INVITE's.
    static func serverKey(of request: SIPMessage) -> TransactionKey {
        let method = request.method ?? .options
        return key(request.branch, method == .ack ? .invite : method)
    }

    /// The earliest timer of any transaction.
    /// The earliest timer of any transaction, each read in place (`AgentTable.earliest`): the pool asks after
    /// every datagram, and a copy of each transaction to ask it cost more than the comparisons. Mutating only for
    /// that in-place access; nothing changes.
    mutating func nextDeadline() -> UInt64? {
        if knownNext.valid { return knownNext.due }
        let due = walkedNextDeadline()
        knownNext = (true, due)
        return due
    }

    private mutating func walkedNextDeadline() -> UInt64? {
        let client = clients.earliest { $0.nextDeadline }
        let server = servers.earliest { $0.nextDeadline }
        guard let client else { return server }
        return min(client, server ?? .max)
    }

    /// The request that began transaction `key`, client or server.
    func request(_ key: TransactionKey) -> SIPMessage? { clients[key]?.request ?? servers[key]?.request }

    func hasServer(_ key: TransactionKey) -> Bool { servers.contains(key) }

    /// Where server transaction `key` answers.
    func source(_ key: TransactionKey) -> Int? { sources[key] }

    /// Starts a client transaction for `request` (its top Via names the branch) and returns the effects of
    /// sending it.
    mutating func start(_ request: SIPMessage, now: UInt64) -> (TransactionKey, [TransactionEffect]) {
        knownNext.valid = false
        var request = request
        request.keepFields()  // the key, each send's history and a timeout read them
        let (transaction, effects) = ClientTransaction.start(request, timers: timers, now: now)
        let key = Self.key(request.branch, request.cseq?.method)
        clients[key] = transaction
        return (key, effects)
    }

    /// A response matched to its client transaction (nil: none has its key). `absorbed` when it repeats what the
    /// transaction has seen: a retransmission the books count apart, including a 2xx again in Accepted, which
    /// still reaches the layer above (its ACK is sent again, §13.2.2.4).
    mutating func receive(response: SIPMessage, now: UInt64)
        -> (key: TransactionKey, effects: [TransactionEffect], absorbed: Bool)? {
        knownNext.valid = false
        let key = Self.clientKey(of: response)
        return clients.update(key) { t in
            let repeated = t.state == .accepted && (response.status ?? 0) / 100 == 2
            let effects = t.receive(response, now: now)
            return (key, effects, effects.isEmpty || repeated)
        }
    }

    /// A request matched to its server transaction (a retransmission, or the ACK of a non-2xx); nil when it
    /// starts a new one (or is the ACK of a 2xx).
    mutating func receive(request: SIPMessage, now: UInt64) -> (key: TransactionKey, effects: [TransactionEffect])? {
        knownNext.valid = false
        let key = Self.serverKey(of: request)
        return servers.update(key) { t in (key, t.receive(request, now: now)) }
    }

    /// Passes the layer above's `response` through its server transaction, created for `request` (or for the
    /// response itself, which carries the request's Via and CSeq) when there is none yet.
    mutating func respond(_ response: SIPMessage, to request: SIPMessage?, source: Int, now: UInt64)
        -> (key: TransactionKey, effects: [TransactionEffect]) {
        knownNext.valid = false
        var response = response
        response.keepFields()  // the key and the history read them
        let key = Self.key(response.branch, response.cseq?.method)
        sources[key] = source
        if let effects = servers.update(key, { $0.respond(response, now: now) }) { return (key, effects) }
        var t = ServerTransaction(request: request ?? response, timers: timers)
        let effects = t.respond(response, now: now)
        servers[key] = t
        return (key, effects)
    }

    /// The ACK of server transaction `key`'s 2xx, found by its dialog: ends the transaction if it is Accepted.
    mutating func acknowledged(_ ack: SIPMessage, key: TransactionKey, now: UInt64) {
        knownNext.valid = false
        let effects = servers.update(key) { t in t.state == .accepted ? t.receive(ack, now: now) : [] }
        if effects?.contains(.terminated) == true { forget(key) }
    }

    /// Fires every timer due at `now`: each fired transaction's key, where it answers (server ones), and effects,
    /// client transactions first.
    mutating func advance(to now: UInt64) -> [(key: TransactionKey, source: Int?, effects: [TransactionEffect])] {
        knownNext.valid = false
        var fired: [(key: TransactionKey, source: Int?, effects: [TransactionEffect])] = []
        for (key, effects) in clients.updateEach({ t -> [TransactionEffect]? in
            guard let due = t.nextDeadline, due <= now else { return nil }
            return t.advance(to: now)
        }) {
            fired.append((key, nil, effects))
        }
        for (key, effects) in servers.updateEach({ t -> [TransactionEffect]? in
            guard let due = t.nextDeadline, due <= now else { return nil }
            return t.advance(to: now)
        }) {
            fired.append((key, sources[key], effects))
        }
        return fired
    }

    /// Forgets a terminated transaction.
    mutating func forget(_ key: TransactionKey) {
        knownNext.valid = false
        clients.removeValue(forKey: key)
        servers.removeValue(forKey: key)
        sources.removeValue(forKey: key)
    }
}

/// A transaction's key (§17.1.3, §17.2.3): its top Via branch and CSeq method (a CANCEL shares its INVITE's
/// branch), kept as two strings rather than joined into one at every lookup.
struct TransactionKey: Hashable {
    let branch: String
    let method: String
}
