import SIP

/// One SIP user agent (RFC 3261 UAC and UAS) without I/O: messages and the time go in, bytes to send and
/// `SIPEvent`s come out (`takeOutbox`, `takeEvents`). `SIPClientPool` runs many of them on an `EventThread`;
/// tests can run one by hand under a `ManualClock`.
///
/// Layered as PJSIP and libre are: a `TransactionLayer` (the client and server transactions and their matching),
/// a `RegistrationClient` and the `InviteSessions` (calls, and dialogs by Call-ID and both tags). This type only
/// routes between them: what arrives goes to its transaction, then to the layer the transaction's user is;
/// what the layers send goes through the transactions to the outbox (`SIPCore`).
///
/// Requests go to the outbound proxy (the registrar, Kamailio); responses go back where their request came from.
/// Thread rule: one owner thread (the pool's event thread) calls everything.
public final class SIPUserAgent {
    /// Where a message goes: the outbound proxy, or back to the sender of the request it answers.
    public enum Destination: Sendable, Equatable {
        case proxy
        case source(Int)
    }

    public let account: SIPAccount
    public let transport: SIPTransportKind
    /// The host Via and Contact name instead of the local address: a WebSocket agent's `<token>.invalid` (RFC 7118
    /// §5.2), nil for the others.
    let sentByHost: String?
    /// This agent's own Via, Contact and From (its host and port as Via and Contact name them).
    public private(set) var local: SIPLocalHeaders
    /// Its books; the messages sent and received are counted in `tally` as they go and folded in on a read. A
    /// change through `_modify` (a retransmission, a malformed datagram, a timeout counted) touches books the
    /// tally never holds, so it does not fold: folding there hashed every method and status into the books for
    /// each retransmission (issue 33).
    public internal(set) var counters: SIPCounters {
        get {
            tally.fold(into: &books)
            return books
        }
        _modify { yield &books }
    }

    /// Adds its books to `total` (`SIPCounters.merge`) without copying or folding them: the pool's total.
    public func addCounters(to total: inout SIPCounters) {
        books.merge(into: &total)
        tally.add(to: &total)
    }

    /// `addCounters(to:)` with the tally's counts added to `sum` instead, which the pool folds into the books
    /// once for all its agents (`MessageTally.add`).
    func addCounters(to total: inout SIPCounters, tally sum: inout MessageTally) {
        books.merge(into: &total)
        sum.add(tally)
    }
    var books = SIPCounters()
    /// Requests and responses sent and received, by method and status (`MessageTally`).
    var tally = MessageTally()
    /// Told of each message with a Call-ID this agent sends or receives, once (no retransmission): its Call-ID,
    /// whether it was sent, and the message. The Driver writes a call's into the run's history in its own words;
    /// nil notes nothing.
    public var onMessage: ((_ callID: String, _ sent: Bool, _ message: SIPMessage) -> Void)?
    /// Asked for each request this agent starts a transaction for: one header to add to it (the Driver's sampled
    /// call's trace context, `observability.trace.sip_header`); nil, or a nil answer, adds none.
    public var requestHeader: ((_ request: SIPMessage) -> (name: String, value: String)?)?

    /// Call-IDs, tags, branches and cnonces come from here, in the order the layers build messages.
    let ids: SIPIdentifiers
    /// What is to be sent and told (`AgentMail`).
    var mail = AgentMail()
    var transactions: TransactionLayer
    let registration: RegistrationClient
    let sessions: InviteSessions
    /// What it does when its connection breaks (`reconnect`), and the recovery under way.
    var flow: FlowRecovery

    /// `sentByHost`: see the property (a WebSocket agent's `.invalid` host; nil: `localHost`). `demux`: its id on a
    /// shared socket (`SIPAccount.localHeaders`).
    public init(account: SIPAccount, transport: SIPTransportKind, localHost: String = "127.0.0.1", localPort: Int,
                seed: UInt64, sentByHost: String? = nil, demux: Int? = nil) {
        self.account = account
        self.transport = transport
        self.sentByHost = sentByHost
        local = account.localHeaders(transport: transport, host: localHost, port: localPort, sentByHost: sentByHost,
                                     demux: demux)
        ids = SIPIdentifiers(seed: seed)
        transactions = TransactionLayer(timers: transport.timers)
        registration = RegistrationClient(account: account, ids: ids)
        sessions = InviteSessions(account: account, ids: ids)
        flow = FlowRecovery(seed: seed)
    }

    /// This agent's address as Via and Contact name it.
    public var localHost: String { local.host }
    public var localPort: Int { local.port }

    /// Set once a TCP connection's local port is known (Via and Contact name it from then on), and at each wake of
    /// a parked agent: the same headers at the new port (`SIPLocalHeaders.move(toPort:)`, not laid out again).
    public func setLocalPort(_ port: Int) {
        local.move(toPort: port)
    }

    /// How the agent meets a new INVITE by itself: 180 at once (a device whose UI rings at once), and 200 right
    /// after (a device that answers every call, as SIPp's UAS does).
    public var autoRing: Bool {
        get { sessions.autoRing }
        set { sessions.autoRing = newValue }
    }

    public var autoAnswer: Bool {
        get { sessions.autoAnswer }
        set { sessions.autoAnswer = newValue }
    }

    /// Report a 100 Trying to this agent's INVITE as `.progress(call:, status: 100)` (the Driver fulfils a
    /// `start` on it: the proxy took the call, as an HTTP server's answer says). Off: 100 is not an event.
    public var reportsTrying: Bool {
        get { sessions.reportsTrying }
        set { sessions.reportsTrying = newValue }
    }

    /// Asked for the RTP port of each new call's SDP (the caller's offer, the callee's answer), by Call-ID,
    /// before it is written: the port the owner's media stream listens on. Nil, or a nil answer: a random even
    /// port nothing listens on (signalling only).
    public var mediaPort: ((_ callID: String) -> Int?)? {
        get { sessions.mediaPort }
        set { sessions.mediaPort = newValue }
    }

    /// Call `callID`'s SDPs: this end's last offer or answer and the other end's (nil before it came).
    public func sdp(_ callID: String) -> (local: SDPSession, remote: SDPSession?)? {
        sessions.call(callID).map { ($0.localSDP, $0.remoteSDP) }
    }

    /// What is to be sent, taken (the agent's list left empty). Swapped out, not returned and cleared keeping its
    /// capacity: the caller still held the buffer then, so the clearing allocated a new one on every call, also
    /// when there was nothing (the pool asks after every datagram).
    public func takeOutbox() -> [(bytes: [UInt8], to: Destination)] {
        guard !mail.outbox.isEmpty else { return [] }
        var taken: [(bytes: [UInt8], to: Destination)] = []
        swap(&taken, &mail.outbox)
        return taken
    }

    /// The events told since the last take, in order (taken as `takeOutbox` takes).
    public func takeEvents() -> [SIPEvent] {
        guard !mail.events.isEmpty else { return [] }
        var taken: [SIPEvent] = []
        swap(&taken, &mail.events)
        return taken
    }

    /// `takeOutbox` for the pool: `body` reads the list, whose storage the agent then keeps for its next messages
    /// (a list handed away left the agent none, and its next send allocated one: a malloc and a free per flush).
    func drainOutbox(_ body: ([(bytes: [UInt8], to: Destination)]) -> Void) {
        guard !mail.outbox.isEmpty else { return }
        var taken = mail.spareOutbox
        mail.spareOutbox = []
        swap(&taken, &mail.outbox)
        body(taken)
        AgentMail.empty(&taken)
        mail.spareOutbox = taken
    }

    /// `takeEvents` as `drainOutbox` takes: `body` may reach the agent again (the owner's handler performs a
    /// command), which then tells its events in a list of their own.
    func drainEvents(_ body: ([SIPEvent]) -> Void) {
        guard !mail.events.isEmpty else { return }
        var taken = mail.spareEvents
        mail.spareEvents = []
        swap(&taken, &mail.events)
        body(taken)
        AgentMail.empty(&taken)
        mail.spareEvents = taken
    }

    /// The earliest instant `advance(to:)` has work at.
    public var nextDeadline: UInt64? {
        // Compared in pairs: the pool asks after every event, and an array of the four was allocated each time.
        func earlier(_ a: UInt64?, _ b: UInt64?) -> UInt64? { a.map { a in b.map { min(a, $0) } ?? a } ?? b }
        return earlier(earlier(registration.refreshAt, transactions.nextDeadline()),
                       earlier(sessions.abandonedDeadline, flow.retryAt))
    }

    /// Calls in progress (not yet ended).
    public var callCount: Int { sessions.calls.count }

    /// The Call-ID its REGISTERs carry (kept across refreshes), nil before the first.
    public var registrationCallID: String? { registration.callID }

    /// When the next refresh REGISTER goes out, nil when none is planned.
    public var registrationRefreshAt: UInt64? { registration.refreshAt }

    // MARK: - Registration and calls

    /// Sends a REGISTER (a refresh keeps Call-ID and raises CSeq); `.registered` or `.registrationFailed` follows.
    /// Refreshes by itself at 80 % of the granted lifetime.
    public func register(now: UInt64) { registration.register(now: now, core: self) }

    /// Places a call to `target` (a SIP URI through the proxy); returns its Call-ID, the handle for the rest.
    @discardableResult
    public func invite(_ target: String, now: UInt64) -> String { sessions.invite(target, now: now, core: self) }

    /// Cancels an unanswered outgoing call (§9.1); false when it is not ringing or already answered. The call
    /// ends with `.cancelled` when the 487 comes; if a 200 crossed the CANCEL, it is `.answered`, ACKed and ended
    /// by a BYE (`.ended(.localBye)`), also when the 200 comes after the 487 (within 64*T1; after that wait,
    /// `.settled`).
    @discardableResult
    public func cancel(_ callID: String, now: UInt64) -> Bool { sessions.cancel(callID, now: now, core: self) }

    /// Sends 180 Ringing for an incoming call.
    @discardableResult
    public func ring(_ callID: String, now: UInt64) -> Bool { sessions.ring(callID, now: now, core: self) }

    /// Answers an incoming call with 200 and the SDP answer (the callee's dialog is confirmed by it); `.answered`
    /// follows its ACK.
    @discardableResult
    public func answer(_ callID: String, now: UInt64) -> Bool { sessions.answer(callID, now: now, core: self) }

    /// Declines an incoming call: 486 Busy Here or 603 Decline.
    @discardableResult
    public func decline(_ callID: String, status: Int = 603, now: UInt64) -> Bool {
        sessions.decline(callID, status: status, now: now, core: self)
    }

    /// Ends an answered call with BYE (a callee's goes once its 2xx is ACKed); `.ended(.localBye)` follows its
    /// response.
    @discardableResult
    public func bye(_ callID: String, now: UInt64) -> Bool { sessions.bye(callID, now: now, core: self) }

    /// Holds (`a=sendonly`) or resumes (`a=sendrecv`) an answered call by re-INVITE; `.hold` follows its 200.
    @discardableResult
    public func setHold(_ callID: String, held: Bool, now: UInt64) -> Bool {
        sessions.setHold(callID, held: held, now: now, core: self)
    }

    // MARK: - Time

    /// Fires every transaction timer due at `now` and refreshes the registration when it is due.
    public func advance(to now: UInt64) {
        for (key, source, effects) in transactions.advance(to: now) {
            apply(effects, source: source, key: key, now: now)
        }
        registration.advance(to: now, core: self)
        sessions.expireAbandoned(now: now, core: self)
    }
}

/// An agent's outgoing messages and events, with the storage of the last lists drained kept for the next (the pool
/// drains after every datagram: `drainOutbox`, `drainEvents`).
struct AgentMail {
    var outbox: [(bytes: [UInt8], to: SIPUserAgent.Destination)] = []
    var events: [SIPEvent] = []
    var spareOutbox: [(bytes: [UInt8], to: SIPUserAgent.Destination)] = []
    var spareEvents: [SIPEvent] = []

    /// Empties `list`, keeping its storage, one element at a time: `removeAll(keepingCapacity:)` destroyed them
    /// through `swift_arrayDestroy`, the runtime's generic walk over the element type's witnesses (a tuple's took
    /// each field's in turn), ~4.8 k instructions a call for the pool's two drains; `popLast` destroys each with
    /// code made for the type.
    @inline(__always)
    static func empty<Element>(_ list: inout [Element]) {
        while list.popLast() != nil {}
    }
}
