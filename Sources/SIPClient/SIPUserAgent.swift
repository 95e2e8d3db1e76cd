import Determinism
import SIP

/// One SIP user agent (RFC 3261 UAC and UAS) without I/O: messages and the time go in, bytes to send and
/// `SIPEvent`s come out (`takeOutbox`, `takeEvents`). `SIPClientPool` runs many of them on an `EventThread`;
/// tests can run one by hand under a `ManualClock`.
///
/// Requests go to the outbound proxy (the registrar, Kamailio); responses go back where their request came from.
/// Thread rule: one owner thread (the pool's event thread) calls everything.
// limits: 18 stored properties: an RFC 3261 agent's transaction maps (client, server, and where each server
// transaction answers) sit beside its calls and registration so a message finds its transaction in one lookup;
// `onMessage` is the history's tap on the wire.
public final class SIPUserAgent {
    /// Where a message goes: the outbound proxy, or back to the sender of the request it answers.
    public enum Destination: Sendable, Equatable {
        case proxy
        case source(Int)
    }

    public let account: SIPAccount
    public let transport: SIPTransportKind
    /// This agent's own address as Via and Contact name it (host:port).
    public let localHost: String
    public private(set) var localPort: Int
    /// How the agent meets a new INVITE by itself: 180 at once (a device whose UI rings at once), and 200 right
    /// after (a device that answers every call, as SIPp's UAS does).
    public var autoRing = true
    public var autoAnswer = false
    /// Report a 100 Trying to this agent's INVITE as `.progress(call:, status: 100)` (the Driver fulfils a
    /// `start` on it: the proxy took the call, as an HTTP server's answer says). Off: 100 is not an event.
    public var reportsTrying = false
    public internal(set) var counters = SIPCounters()
    /// Told of each message of a call this agent sends or receives, once (no retransmission, no REGISTER or
    /// OPTIONS): its Call-ID, whether it was sent, and its words (`SIPUserAgent.historyLabel`). The Driver writes
    /// them into the run's history; nil notes nothing.
    public var onMessage: ((_ callID: String, _ sent: Bool, _ message: String) -> Void)?

    let timers: SIPTimerValues
    /// Call-IDs, tags, branches and cnonces come from here; the digest nonce count rises per answer.
    var ids: Identifiers
    var outbox: [(bytes: [UInt8], to: Destination)] = []
    var events: [SIPEvent] = []
    /// Client transactions by top Via branch and CSeq method (a CANCEL shares its INVITE's branch).
    var clients: [TransactionKey: ClientTransaction] = [:]
    var servers: [TransactionKey: ServerTransaction] = [:]
    /// Where each server transaction's responses go.
    var serverSources: [TransactionKey: Int] = [:]
    var calls: [String: SIPCall] = [:]
    var registration = Registration()

    public init(account: SIPAccount, transport: SIPTransportKind, localHost: String = "127.0.0.1", localPort: Int,
                seed: UInt64) {
        self.account = account
        self.transport = transport
        self.localHost = localHost
        self.localPort = localPort
        timers = transport.timers
        ids = Identifiers(random: SeededRandom(seed: seed))
    }

    /// Set once a TCP connection's local port is known.
    public func setLocalPort(_ port: Int) { localPort = port }

    public func takeOutbox() -> [(bytes: [UInt8], to: Destination)] {
        defer { outbox.removeAll(keepingCapacity: true) }
        return outbox
    }

    public func takeEvents() -> [SIPEvent] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// The earliest instant `advance(to:)` has work at.
    public var nextDeadline: UInt64? {
        var next = registration.refreshAt
        for t in clients.values { if let d = t.nextDeadline { next = min(next ?? d, d) } }
        for t in servers.values { if let d = t.nextDeadline { next = min(next ?? d, d) } }
        return next
    }

    /// Calls in progress (not yet ended).
    public var callCount: Int { calls.count }

    /// The Call-ID its REGISTERs carry (kept across refreshes), nil before the first.
    public var registrationCallID: String? { registration.callID }

    // MARK: - Identifiers

    func token() -> String {
        ids.next += 1
        return String(ids.random.next() & 0xFFFF_FFFF_FFFF, radix: 36) + String(ids.next, radix: 36)
    }

    func newBranch() -> String { "z9hG4bK" + token() }

    /// Built by concatenation (string interpolation cost several times more, on every request and answer).
    var contactURI: String {
        var uri = "sip:" + account.user + "@" + localHost + ":" + String(localPort) + ";transport="
            + transport.rawValue.lowercased()
        if let push = account.push { uri += push.uriParameters }
        return uri
    }

    /// `SIPVia(transport:sentBy:branch:).text` (rport asked for), written directly.
    func via(branch: String) -> String {
        "SIP/2.0/" + transport.rawValue + " " + localHost + ":" + String(localPort) + ";branch=" + branch + ";rport"
    }

    // MARK: - Sending

    /// Starts a client transaction for `request` (its top Via names the branch).
    func startClient(_ request: SIPMessage, now: UInt64) {
        var request = request
        request.keepFields()  // the key, each send's history label and a timeout read them
        let (transaction, effects) = ClientTransaction.start(request, timers: timers, now: now)
        let key = Self.key(request.branch, request.cseq?.method)
        clients[key] = transaction
        apply(effects, source: nil, key: key)
    }

    func send(_ message: SIPMessage, to destination: Destination, retransmission: Bool = false) {
        if let method = message.method {
            counters.requestsSent[method.rawValue, default: 0] += retransmission ? 0 : 1
        } else if let status = message.status {
            counters.responsesSent[status, default: 0] += retransmission ? 0 : 1
        }
        if retransmission { counters.retransmissionsSent[Self.label(message), default: 0] += 1 }
        if !retransmission { note(message, sent: true) }
        outbox.append((message.serialized(), destination))
    }

    /// Tells `onMessage` of a call's message.
    func note(_ message: SIPMessage, sent: Bool) {
        guard let onMessage, let callID = message.callID, let label = Self.historyLabel(message) else { return }
        onMessage(callID, sent, label)
    }

    /// A call's message as the history names it: the method (`re-INVITE` for an INVITE inside a dialog) or
    /// `<status> <METHOD>`; nil for REGISTER and OPTIONS, which belong to no call.
    public static func historyLabel(_ message: SIPMessage) -> String? {
        if let method = message.method {
            if method == .register || method == .options { return nil }
            return method == .invite && message.toTag != nil ? "re-INVITE" : method.rawValue
        }
        guard let status = message.status, let method = message.cseq?.method, method != .register,
              method != .options else { return nil }
        return "\(status) \(method.rawValue)"
    }

    static func key(_ branch: String?, _ method: SIPMethod?) -> TransactionKey {
        TransactionKey(branch: branch ?? "", method: method?.rawValue ?? "")
    }

    static func label(_ message: SIPMessage) -> String {
        message.method?.rawValue ?? message.status.map(String.init) ?? "?"
    }

    /// Carries out a transaction's effects; responses delivered go to the call or registration logic.
    func apply(_ effects: [TransactionEffect], source: Int?, key: TransactionKey, now: UInt64 = 0) {
        for effect in effects {
            switch effect {
            case .send(let message, let again):
                send(message, to: message.isRequest ? .proxy : source.map(Destination.source) ?? .proxy,
                     retransmission: again)
            case .deliver(let message):
                if message.isRequest {
                    ackArrived(message, now: now)
                } else {
                    responseArrived(message, now: now)
                }
            case .timedOut(let timer):
                counters.timeouts[timer.rawValue.uppercased(), default: 0] += 1
                transactionTimedOut(key: key, timer: timer, now: now)
            case .terminated:
                clients[key] = nil
                servers[key] = nil
                serverSources[key] = nil
            }
        }
    }

    // MARK: - Time

    /// Fires every transaction timer due at `now` and refreshes the registration when it is due.
    public func advance(to now: UInt64) {
        for key in Array(clients.keys) {
            guard var t = clients[key], let due = t.nextDeadline, due <= now else { continue }
            let effects = t.advance(to: now)
            clients[key] = t
            apply(effects, source: nil, key: key, now: now)
        }
        for key in Array(servers.keys) {
            guard var t = servers[key], let due = t.nextDeadline, due <= now else { continue }
            let effects = t.advance(to: now)
            servers[key] = t
            apply(effects, source: serverSources[key], key: key, now: now)
        }
        if let refresh = registration.refreshAt, refresh <= now {
            registration.refreshAt = nil
            register(now: now)
        }
    }

    private func transactionTimedOut(key: TransactionKey, timer: SIPTimer, now: UInt64) {
        guard let request = clients[key]?.request ?? servers[key]?.request, let callID = request.callID else { return }
        if request.method == .register {
            registration.inFlight = nil
            events.append(.registrationFailed(status: 408))
        } else if calls[callID] != nil {
            if timer == .l || request.method == .bye {
                endCall(callID, .timedOut)
            } else if request.method == .invite {
                events.append(.failed(call: callID, status: 408))
                if calls[callID]?.dialog?.state != .confirmed { calls[callID] = nil }
            }
        }
    }
}

/// A transaction's key (§17.1.3, §17.2.3): its top Via branch and CSeq method (a CANCEL shares its INVITE's
/// branch), kept as two strings rather than joined into one at every lookup.
struct TransactionKey: Hashable {
    let branch: String
    let method: String
}

/// The seeded source of an agent's identifiers and its digest nonce count.
struct Identifiers {
    var random: SeededRandom
    var next: UInt64 = 0
    var nonceCount: UInt32 = 0
}
