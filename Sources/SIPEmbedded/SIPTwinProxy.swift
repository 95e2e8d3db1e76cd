import Determinism
import PushModel
import SIP
import SIPClient

/// The SIP server of the embedded twin: a registrar and transaction-stateful proxy on a `SIPNetwork`, reproducing
/// what deploy/kamailio/kamailio.cfg makes Kamailio do that callstorm depends on, so the Driver's SIP mapping is
/// tested on the embedded loop as it runs against Kamailio end to end.
///
/// Reproduced (the cfg's route in brackets):
/// - REGISTER [REGISTRAR]: a digest challenge (401, realm `callstorm`, no qop, as `www_challenge(realm, "0")`)
///   when `challengesRegister`, checked against the one password; one binding per address of record, the new
///   contact replacing the old (`save("location", "0x04")`); lifetimes raised or lowered into 60…3600 s, 0
///   removes; the 200 lists the binding with its `expires`. Bindings lapse at their expiry.
/// - An INVITE [request_route, LOCATION]: 100 Trying at once; Record-Route `<sip:host:port;lr>`; 404 for a user
///   with no binding; relayed to the contact over its transport, the proxy's own Via on top; a relay to a TCP
///   connection that is gone fails at once with 477; no final answer within 5 s of the relay (fr_timer), or within
///   30 s of a provisional (fr_inv_timer): 408, and the branches that rang are CANCELled.
/// - The RFC 8599 push path with `push` set (WITH_PUSH) [PUSH, STALE, PARK, WAKE, REGISTRAR's ts_append and
///   t_continue]: an INVITE to a binding whose Contact has `pn-provider` gets a push timeout for both timers; over
///   UDP it is relayed to the stale contact first (which vanishes, or reaches whoever holds that port now), over
///   TCP suspended without a relay; then the VoIP push goes to the gateway (`APNsPush`: token `pn-prid`, topic
///   `pn-param` without its team, priority 10, payload with `uuid` = Call-ID and `handle` = the From URI). The
///   user's next REGISTER, after its 200, adds a branch to the new contact (UDP) or continues the INVITE towards it
///   (TCP; 480 if it has no binding then). The push timeout's 408 ends it; a REGISTER after that finds nothing.
/// - With `fork` (WITH_FORK, fork.cfg [FORK, FORKBRANCH, FORKWAKE, FORKDONE]): a binding per RFC 5626 instance
///   (a device's new contact replaces its own); an INVITE rings every awake binding at once and pushes every
///   sleeping one, parked (its parking branch holds the transaction until the push timeout) until its wake
///   REGISTER adds a branch; a 2xx or 6xx CANCELs the other branches with RFC 3326 Reason (cause 200 "Call
///   completed elsewhere", or the 6xx), parks end at once; a device woken after the call ended gets a background
///   push saying how (`forkTellsLateWake`, WITH_FORK_NO_LATE off).
/// - CANCEL [request_route]: matched to its INVITE by branch (none: dropped), answered 200, relayed to the
///   branches that rang; an INVITE no branch answered yet is ended with 487 at once.
/// - In-dialog requests [WITHINDLG]: loose routing to the Request-URI (the Route naming the proxy taken off); ACKs
///   forwarded statelessly, the ACK of a negative final answer absorbed; BYE and re-INVITE relayed statefully.
/// - Responses: matched by the proxy's Via branch, its Via taken off, 100 absorbed, a 2xx (and its repeats)
///   forwarded as it comes, the best final answer forwarded once every branch ended, repeated by the proxy's server
///   transaction until the caller's ACK (UDP), and ACKed hop by hop.
///
/// Not reproduced: authentication of anything but REGISTER (the cfg has none either), Max-Forwards and the
/// sanity checks, DNS and any host but the loopback, registrations over a database, RFC 5626 flows (reg-id),
/// the push's HTTP round trip and its 2 s connect timeout (the push is handed over at the instant the INVITE is
/// parked), Kamailio's own timer granularity, and its log. Responses it makes itself carry no Server header.
///
/// Thread rule: the network's thread calls everything.
public final class SIPTwinProxy: SIPNetworkNode {
    public struct Configuration {
        /// Where it listens (UDP and TCP), as `target.sip` names it.
        public var host = "127.0.0.1"
        public var port = 5060
        public var realm = "callstorm"
        /// The one digest password every user has (the cfg's SIP_PASSWORD).
        public var password = "callstorm"
        /// Challenge REGISTERs (the cfg always does; off for a registrar that does not).
        public var challengesRegister = true
        /// The push route (WITH_PUSH); nil relays every INVITE to its contact.
        public var push: PushRoute?
        public var minExpires = 60
        public var maxExpires = 3600
        /// fr_timer and fr_inv_timer.
        public var finalResponseNanos: UInt64 = 5_000_000_000
        public var inviteAnswerNanos: UInt64 = 30_000_000_000
        /// WITH_FORK (fork.cfg): a binding per device (RFC 5626 instance), an INVITE forked to all of them.
        public var fork = false
        /// Without WITH_FORK_NO_LATE: a device woken after its call ended gets a background push saying how.
        public var forkTellsLateWake = true

        public init(port: Int = 5060, challengesRegister: Bool = true, push: PushRoute? = nil, fork: Bool = false,
                    forkTellsLateWake: Bool = true) {
            self.port = port
            self.challengesRegister = challengesRegister
            self.push = push
            self.fork = fork
            self.forkTellsLateWake = forkTellsLateWake
        }
    }

    /// WITH_PUSH: the push timeout (PUSH_TIMEOUT) and the gateway the VoIP push is handed to (callstorm's push
    /// gateway calls its sink with the same value: `DevicePushSink.accept`).
    public struct PushRoute {
        public var timeoutNanos: UInt64
        public var gateway: (APNsPush) -> Void

        public init(timeoutNanos: UInt64 = 10_000_000_000, gateway: @escaping (APNsPush) -> Void) {
            self.timeoutNanos = timeoutNanos
            self.gateway = gateway
        }
    }

    let network: SIPNetwork
    let configuration: Configuration
    /// What it did, for tests.
    public internal(set) var stats = SIPTwinStats()
    /// Bindings by user (the user part of the address of record): one, or with `fork` one per device.
    var bindings: [String: [SIPTwinBinding]] = [:]
    /// With `fork`: which call each sleeping device was pushed for, and how each forked call ended.
    var forks = SIPTwinForkBooks()
    /// Nonces it challenged with (each accepted while the run lasts, as within Kamailio's nonce_expire).
    var nonces: Set<String> = []
    /// Requests relayed statefully, by their upstream branch and method; their branches by the proxy's branch.
    var relays: [TwinKey: SIPTwinRelay] = [:]
    var branches: [TwinKey: SIPTwinBranch] = [:]
    /// INVITEs waiting for their user's wake REGISTER, by user, oldest first.
    var parked: [String: [TwinKey]] = [:]
    var nextToken: UInt64 = 0

    public init(network: SIPNetwork, configuration: Configuration) {
        self.network = network
        self.configuration = configuration
        // Every transport on the one port: in memory a TLS or WebSocket connection is a TCP one (no handshake).
        for transport in [SIPTransportKind.udp, .tcp, .tls, .ws] {
            network.bind(self, at: SIPEndpoint(transport, configuration.port))
        }
    }

    /// The registered contact of `user` (the latest, with `fork`), nil when it has none (or it lapsed).
    public func binding(of user: String) -> SIPTwinBinding? { bindings(of: user).last }

    /// Every live binding of `user`, oldest first.
    public func bindings(of user: String) -> [SIPTwinBinding] {
        let now = network.clock.nowNanos()
        return (bindings[user] ?? []).filter { $0.expiresAt > now }
    }

    func token() -> String {
        nextToken += 1
        return "twin" + String(nextToken, radix: 36)
    }

    func endpoint(_ transport: SIPTransportKind) -> SIPEndpoint { SIPEndpoint(transport, configuration.port) }

    func send(_ message: SIPMessage, over transport: SIPTransportKind, to: SIPEndpoint) {
        network.send(message.serialized(), from: endpoint(transport), to: to)
    }

    // MARK: - The network's side

    func receive(_ packet: SIPPacket, now: UInt64) {
        guard let message = try? SIPParser.parse(datagram: packet.bytes), (try? SIPParser.validate(message)) != nil
        else {
            stats.malformed += 1  // sanity_check: dropped
            return
        }
        if message.isRequest {
            request(message, from: packet.from, now: now)
        } else {
            response(message, now: now)
        }
    }

    private func request(_ request: SIPMessage, from: SIPEndpoint, now: UInt64) {
        let method = request.method ?? .options
        let key = TwinKey(request.branch, method == .ack ? .invite : method)
        if method == .ack {
            return ack(request, key: key, from: from, now: now)
        }
        if method == .cancel { return cancel(request, from: from, now: now) }
        if relays[key] != nil { return retransmitted(request, key: key, now: now) }
        if request.toTag != nil { return inDialog(request, key: key, from: from, now: now) }
        switch method {
        case .register: register(request, from: from, now: now)
        case .options where Self.user(of: request.requestURI ?? "") == nil:
            reply(request.response(200, "Keepalive"), over: from.transport, to: from)
        default: initial(request, key: key, from: from, now: now)
        }
    }

    /// A stateless reply (sl_send_reply).
    func reply(_ response: SIPMessage, over transport: SIPTransportKind, to: SIPEndpoint) {
        stats.replied[response.status ?? 0, default: 0] += 1
        send(response, over: transport, to: to)
    }

    var nextDeadline: UInt64? {
        var next: UInt64?
        func note(_ due: UInt64?) { if let due { next = min(next ?? due, due) } }
        for relay in relays.values {
            note(relay.deadline)
            note(relay.server?.nextDeadline)
        }
        for branch in branches.values { note(branch.client?.nextDeadline) }
        return next
    }

    func advance(to now: UInt64) {
        for key in relays.keys.sorted(by: TwinKey.order) {
            if let due = relays[key]?.deadline, due <= now { finalTimerFired(key, now: now) }
            guard var server = relays[key]?.server, let due = server.nextDeadline, due <= now else { continue }
            let effects = server.advance(to: now)
            relays[key]?.server = server
            applyServer(effects, key: key)
        }
        for key in branches.keys.sorted(by: TwinKey.order) {
            guard var client = branches[key]?.client, let due = client.nextDeadline, due <= now else { continue }
            let effects = client.advance(to: now)
            branches[key]?.client = client
            applyClient(effects, key: key, now: now)
        }
    }

    /// The user part of a SIP URI (`sip:dev-3@host…` → `dev-3`), nil when it names a host only.
    static func user(of uri: String) -> String? {
        let rest = uri.hasPrefix("sip:") ? uri.dropFirst(4) : uri.hasPrefix("sips:") ? uri.dropFirst(5) : uri[...]
        guard let at = rest.firstIndex(of: "@") else { return nil }
        return String(rest[..<at])
    }

    /// Where a contact URI leads on the loopback: its port and `transport` parameter (UDP when absent; `ws` for
    /// both WebSocket transports, RFC 7118 §5.2, so a wss agent's connection is a ws endpoint in memory).
    static func endpoint(of uri: String) -> SIPEndpoint? {
        let rest = uri.hasPrefix("sip:") ? uri.dropFirst(4) : uri[...]
        let hostPart = rest[(rest.firstIndex(of: "@").map { rest.index(after: $0) } ?? rest.startIndex)...]
        let end = hostPart.firstIndex(of: ";") ?? hostPart.endIndex
        let hostPort = hostPart[..<end]
        let port = hostPort.lastIndex(of: ":").flatMap { Int(hostPort[hostPort.index(after: $0)...]) } ?? 5060
        let named = SIPParameters.lookup("transport", in: hostPart[end...])?.lowercased() ?? "udp"
        let transport: SIPTransportKind = ["tcp": .tcp, "tls": .tls, "ws": .ws, "wss": .ws][named] ?? .udp
        return SIPEndpoint(transport, port)
    }
}

/// What the twin proxy did, for tests to read.
public struct SIPTwinStats: Sendable, Equatable {
    /// Responses it made itself (not relayed), by status.
    public var replied: [Int: Int] = [:]
    public var pushes = 0
    /// INVITEs parked for a wake REGISTER, and those a wake REGISTER reached.
    public var parked = 0
    public var woken = 0
    /// Devices woken after their forked call ended, told so by a background push (`forkTellsLateWake`).
    public var lateTold = 0
    /// Bytes it could not parse or that broke §8.1.1.
    public var malformed = 0
}

/// A registered contact.
public struct SIPTwinBinding: Sendable, Equatable {
    public var contact: String
    public var endpoint: SIPEndpoint
    public var expiresAt: UInt64
    /// The RFC 8599 parameters of a Contact that may sleep.
    public var push: PushContactParameters?
    /// Its Contact's RFC 5626 `+sip.instance`: the device, across its wakes.
    public var instance: String?
}

/// A transaction's key on the proxy (its branch and method; a CANCEL's is its INVITE's branch).
struct TwinKey: Hashable {
    let branch: String
    let method: String

    init(_ branch: String?, _ method: SIPMethod) {
        self.branch = branch ?? ""
        self.method = method.rawValue
    }

    static func order(_ a: TwinKey, _ b: TwinKey) -> Bool { (a.branch, a.method) < (b.branch, b.method) }
}
