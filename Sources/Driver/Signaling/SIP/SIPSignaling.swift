import CallModel
import Faults
import Determinism
import Metrics
import RunFormats
import Scenario
import SIP
import SIPClient
import StreamIO

/// A worker's SIP devices (`device.signaling: sip`): the SIP conformer of `DeviceSignaling`, beside HTTP
/// (`HTTPSignaling`) and WebSocket (`DeviceSockets`). One `SIPUserAgent` per awake device in a `SIPClientPool` on the worker's event
/// thread, registered at `target.sip`'s registrar. The flow's requests go out over SIP (`start` INVITE, `join`
/// 200 OK, `decline` 603, `end` BYE or CANCEL while ringing, `pause`/`resume` re-INVITE) and are answered to the
/// call when SIP says they took effect (`WorkerEffect.answer`); what the agents hear becomes the same observations
/// pushes bring (`WorkerEffect.ring` for an incoming INVITE, `WorkerEffect.observe` for an answer or an end). Its
/// timers come back as `TimerEvent.signaling` (`SIPSignalingTimer`).
///
/// The conversation a call creates is named by its SIP Call-ID (the same at both ends of one proxy).
/// Sleeping devices (`sleep: true`) are woken by a VoIP push: `SIPSignaling+Wake`.
///
/// Ownership rule: touched only on the worker's loop (the pool's events run there too).
final class SIPSignaling: DeviceSignaling, HoldsSignalingParts {
    /// One device's part in one SIP call ("leg"), keyed by `legKey`.
    struct Leg {
        let call: Int
        let caller: Bool
        var inviteSent: UInt64 = 0
        var answerSent: UInt64 = 0
        var confirmed = false
        /// 180 seen (the post-dial delay is measured once).
        var rang = false
        /// The dialog state last written to the history (`SIPSignaling+History`); nil before the first.
        var dialogState: HistoryDialogState?
        /// This device's re-INVITE in flight asks for hold (true) or resume (false).
        var holdAsked: Bool?
        /// Hold-and-accept held this call before its answer's ACK came (no re-INVITE may go before it): the hold
        /// re-INVITE goes on the ACK (`SIPSignaling+CallWaiting`).
        var holdOnAck = false
    }

    /// An action sent over SIP, waiting for the event that fulfils it.
    struct Pending {
        let request: ActionRequest
        let started: UInt64
        /// Its timeout on the wheel, cancelled when an answer takes it out (`settle`).
        let ticket: TimerTicket
    }

    var pool: (any SIPAgentPool)!
    /// The time SIP measures at: while the pool tells events a shared-socket datagram caused, the kernel's receive
    /// time of that datagram (`SIPAgentPool.eventTime`), so a coalescing wait or a busy loop is not measured.
    /// Read ~36 times a hold call: `loop.clock` copied the clock out of the loop (an existential copy, a retain
    /// and a release, ~300 instructions a read with the pool's); the clock is held once here (issue 33, s54).
    var now: UInt64 {
        if let told = pool?.eventTime { return told }
        return clock.nowNanos()
    }
    /// The loop's clock, held once (`now`).
    let clock: any Clock
    let target: SIPTargetSpec
    let spec: SIPDeviceSpec
    /// The worker's shared state and doors (`host` for effects), and this kind's slot.
    let parts: SignalingParts
    /// Agents by device (worker-local index) and back; the registrations under way and the legs and actions.
    var agents = AgentLinks()
    var legs = LegTable<Leg>()
    var pending = LegTable<Pending>()
    /// Callers' legs whose CANCEL ended them (487), kept for their dialog line until the agent's `.settled` or a
    /// 2xx that crossed the CANCEL (`SIPSignaling+History`).
    var cancelling = LegTable<Leg>()
    /// The wake-up path's state per sleeping device (`SIPSignaling+Wake`).
    var wake = WakeState()
    /// What the run's SIP faults hold per device (`SIPSignaling+Faults`).
    var faultState = SIPFaultState()
    /// The run's handles, made once: `settings.handles` builds a new book at each read.
    lazy var handleBook = settings.handles
    /// The calls' media streams, when the scenario has `media:` (`SIPSignaling+Media`).
    var media = SIPMediaState()
    /// The history's `sip` lines' tap, shared by the agents (`messageTap`), nil until the first agent.
    var tapStore: SIPMessageTap?

    /// The SIP part of a worker, or nil when its devices speak HTTP. Call on the loop.
    static func make(_ parts: SignalingParts) -> SIPSignaling? {
        guard let spec = parts.settings.scenario.device.sip, let target = parts.settings.scenario.sip else {
            return nil
        }
        let signaling = SIPSignaling(target: target, spec: spec, parts: parts)
        var tls: ClientTLS?
        if spec.transport.isSecure {
            do { tls = try ClientTLS(caFile: target.caFile, keepsSessions: spec.tlsResumption) } catch {
                // The run checks the CA file before it starts (RunSession): this is a CA that changed since.
                parts.books.note("SIP devices over TLS: \(error.why)", limit: 1)
                return nil
            }
        }
        guard let pool = parts.loop.makeSIPPool(proxyHost: target.host, proxyPort: target.port, tls: tls, onEvent: {
            [unowned signaling] agent, event in signaling.event(agent, event)
        }) else {
            parts.books.note("SIP devices need the worker's event thread; this loop has none", limit: 1)
            return nil
        }
        pool.socketsShared = spec.sockets == .shared
        pool.sharedCoalesceNanos = spec.coalesceNanos
        signaling.pool = pool
        signaling.installFaults()
        signaling.installMedia()
        return signaling
    }

    /// SIP calls are dialogs the target holds no view of: a run with SIP devices compares no views.
    static func checksTargetViews(_ settings: DriverSettings) -> Bool {
        settings.scenario.device.sip == nil
    }

    /// A SIP device is known by its address of record, `sip:dev-N@<target.sip.domain>`.
    static func handleAddress(_ settings: DriverSettings) -> HandleAddress? {
        guard settings.scenario.device.sip != nil, let domain = settings.scenario.sip?.domain else { return nil }
        return HandleAddress(scheme: "sip", domain: domain)
    }

    private init(target: SIPTargetSpec, spec: SIPDeviceSpec, parts: SignalingParts) {
        self.parts = parts
        clock = parts.loop.clock
        wake.bundleID = parts.settings.scenario.push.bundleID
        self.target = target
        self.spec = spec
    }

    static func legKey(_ local: Int, _ callID: String) -> LegKey { LegKey(local: local, callID: callID) }

    /// The scenario's `device.transport` as the SIP client's transport.
    static func transportKind(_ transport: SIPDeviceSpec.Transport) -> SIPTransportKind {
        switch transport {
        case .udp: return .udp
        case .tcp: return .tcp
        case .tls: return .tls
        case .ws: return .ws
        case .wss: return .wss
        }
    }

    /// Puts one of this kind's timers on the worker's wheel.
    func schedule(_ timer: SIPSignalingTimer, at nanos: UInt64) {
        host.schedule(.signaling(timer.timer(slot: parts.slot)), at: nanos)
    }

    // MARK: - DeviceSignaling

    func serves(_ local: Int) -> Bool { true }

    func timerFired(_ timer: SignalingTimer, now: UInt64) {
        switch SIPSignalingTimer(timer) {
        case .action(let key, let slot)?: actionTimedOut(key: key, slot: slot)
        case .wake(let local, let callID)?: wakeDue(local, callID: callID)
        case .audioSession(let local, let callID)?: audioSessionUp(Self.legKey(local, callID))
        case nil: break
        }
    }

    /// A reported push wakes a sleeping device; a device left with no call goes back to sleep.
    func moment(_ moment: AppMoment, device local: Int) {
        switch moment {
        case .pushReported(let uuid, let acceptedNanos):
            pushReported(local, conversation: uuid, acceptedNanos: acceptedNanos)
        case .idle: afterCall(local)
        case .relaunched: relaunched(local)
        }
    }

    /// The address of record a call to device `local` is sent to: its user's (every device of the user rings,
    /// as the server forks), the device's own without users.
    func uri(of local: Int) -> String {
        // The name read where it lies: a `let` of the identity copied (retained) every field of it (issue 33).
        "sip:\(table.devices[local].identity.user ?? table.devices[local].identity.id)@\(target.domain)"
    }

    // MARK: - Registration

    /// Registers device `local` (opening its agent); `then` runs once the registrar answered. A sleeping device
    /// registers its push binding and goes to sleep (`SIPSignaling+Wake`).
    func register(_ local: Int, then: @escaping () -> Void) {
        guard let agent = openAgent(local) else {
            books.count(.devicesRegisterFailed, at: now)
            return then()
        }
        agents.registering[local] = Registering(started: now, initial: true, then: then)
        pool.perform(agent) { $0.register(now: $1) }
    }

    /// A registration was answered (`ok`) or refused: the figures and counters are those of one the device asked
    /// for; every one, refreshes the agent sends by itself included, is followed for lapses
    /// (`registrationSettled`).
    func registered(_ local: Int, ok: Bool, status: Int = 200) {
        registrationSettled(local, ok: ok)
        guard let entry = agents.registering.removeValue(forKey: local) else { return }
        let now = self.now
        books.record(.register, micros: Int64((now &- entry.started) / 1000), at: now)
        books.count(ok ? .sipRegistered : .sipRegistration("failed_\(status)"), at: now)
        if entry.initial {
            if ok { table.devices.registered(local) }
            books.count(ok ? .devicesRegistered : .devicesRegisterFailed, at: now)
        }
        if ok { wokeRegistered(local, now: now) }
        entry.then?()
        if entry.initial, sleeps(local) { sleep(local) }
        // A wake REGISTER sent after its call ended (`afterCall`): back to sleep.
        if !entry.initial, table.devices[local].callID == nil { afterCall(local) }
    }

    func openAgent(_ local: Int) -> Int? {
        if let agent = agents.agent[local] { return agent }
        let identity = table.devices[local].identity
        let account = account(local)
        agents.opened += 1
        // Seeded per device and per opening, so a run's Call-IDs, tags and branches repeat with its seed.
        let seed = settings.seed ^ (UInt64(identity.index) &* SeededRandom.golden) ^ (agents.opened << 40)
        // A sleeping device's agent from its last sleep, on a new socket, its taps still set (`SIPSignaling+Wake`).
        let kept = wake.parked.removeValue(forKey: local).flatMap { pool.reopen($0, seed: seed) }
        switch kept ?? pool.add(account: account, transport: Self.transportKind(spec.transport), seed: seed) {
        case .success(let agent):
            let handle = pool.agent(agent)
            handle?.autoRing = true
            handle?.reportsTrying = true
            handle?.reconnect = reconnectPolicy
            if kept == nil, let handle {
                tapMessages(handle, local: local)
                tapTraceContext(handle, local: local)
                tapMedia(handle, local: local)
            }
            agents.agent[local] = agent
            agents.device[agent] = local
            return agent
        case .failure(let error):
            books.note("SIP device \(identity.id) could not open its socket: \(error)", limit: 5)
            return nil
        }
    }

    // MARK: - Actions

    /// Carries one flow action out over SIP; its answer reaches the call when SIP says it took effect.
    func perform(_ request: ActionRequest) {
        let local = request.device
        if request.op == .start {
            if let outside = request.uri { return startCall(request, to: outside) }
            guard let callee = request.to.first else { return answer(request, .failed(reason: "no_callee")) }
            startCall(request, to: uri(of: callee))
            return
        }
        let key = Self.legKey(local, request.conversation)
        guard let leg = legs[key], let agent = agents.agent[local] else {
            if holdUntilInvite(request) { return }
            var answer = ActionAnswer(outcome: .failed(reason: FlowInterpreter.alreadyEnded))
            answer.alreadyEnded = request.kind == .end
            return tell(request, answer)
        }
        awaitAnswer(key, request, started: now)
        let callID = request.conversation
        if request.op == .join { holdOthers(local, answering: callID, agent: agent) }
        var sent = false
        pool.perform(agent) { agent, now in
            switch request.op {
            case .join: sent = agent.answer(callID, now: now)
            case .decline: sent = agent.decline(callID, status: self.declineStatus(request), now: now)
            case .pause, .resume: sent = agent.setHold(callID, held: request.op == .pause, now: now)
            case .end where leg.confirmed: sent = agent.bye(callID, now: now)
            case .end where leg.caller: sent = agent.cancel(callID, now: now)
            case .end: sent = agent.decline(callID, status: 603, now: now)
            default: sent = false
            }
        }
        if request.kind == .join, sent {
            // A UAS's dialog is confirmed by its 2xx (§12.1.1, §13.3.1.4), and the user's answer took effect: the
            // join is fulfilled now (at the ACK with `device.join_at: ack`). Its ACK only measures
            // (`sip.answer_to_ack`); a BYE that overtakes it ends an answered call.
            let now = self.now
            legs.update(key) { leg in
                leg.answerSent = now
                leg.confirmed = true
            }
            dialog(local, request.conversation, .confirmed)
            if spec.joinAt == .answer { fulfil(key, .join) }
            // RFC 3264 §6.1: the answerer sends once its answer is out (and its audio session is up).
            let sendAfter = startMedia(local, callID: callID, answering: true)
            joinOnMedia(key, sendAfter: sendAfter)
        }
        if sent, request.op == .pause || request.op == .resume {
            let hold = request.op == .pause
            legs.update(key) { $0.holdAsked = hold }
        }
        if sent, request.op == .resume { offerMedia(local, callID: callID) }
        if !sent, settle(key) != nil {
            var answer = ActionAnswer(outcome: .failed(reason: "sip_\(request.op.rawValue)_refused"))
            answer.alreadyEnded = request.kind == .end && legs[key] == nil
            tell(request, answer)
        }
    }

    func startCall(_ request: ActionRequest, to uri: String) {
        guard let agent = agents.agent[request.device] else {
            // A sleeping device the user dials from wakes first: REGISTER, then INVITE.
            guard sleeps(request.device), agents.registering[request.device] == nil,
                  let agent = openAgent(request.device) else {
                return answer(request, .failed(reason: "sip_not_registered"))
            }
            // The wake REGISTER has the action's timeout of its own: unanswered (lost, or its agent gone), the
            // dial fails by name instead of staying in flight. Its key has no Call-ID: none exists before the INVITE.
            let key = Self.wakeDialKey(request.device)
            awaitAnswer(key, request, started: now)
            agents.registering[request.device] = Registering(started: now, initial: false) { [self] in
                guard settle(key) != nil else { return }  // timed out: the dial failed, no INVITE goes
                startCall(request, to: uri)
            }
            pool.perform(agent) { $0.register(now: $1) }
            return
        }
        var callID = ""
        let started = now
        placing(request.device, call: request.call) { pool.agent(agent).map { callID = $0.invite(uri, now: started) } }
        let key = Self.legKey(request.device, callID)
        legs[key] = Leg(call: request.call, caller: true, inviteSent: started)
        // A call's devices share its worker, so the callee's push (invite_to_push) is reported beside this; kept
        // only while the caller's leg lives (SIPSignaling+Events drops it), so the table holds the live calls.
        if spec.sleep { wake.inviteSent[callID] = started }
        awaitAnswer(key, request, started: started)
        pool.perform(agent) { _, _ in }
    }

    /// `request` waits on `key` for the SIP event that answers it, its timeout on the wheel from `started`.
    func awaitAnswer(_ key: LegKey, _ request: ActionRequest, started: UInt64) {
        let timer = SIPSignalingTimer.action(key: key, slot: request.slot).timer(slot: parts.slot)
        let ticket = host.scheduleCancellable(.signaling(timer), at: started + settings.actionTimeoutNanos)
        pending.insert(key, Pending(request: request, started: started, ticket: ticket))
    }

    /// Takes out the action waiting on `key`, answered: its timeout comes off the wheel. Left there, it fired
    /// `action_timeout` later only to find the action gone: a wheel entry, a take and a dispatch per SIP action,
    /// five a hold call, at rate (issue 33).
    func settle(_ key: LegKey) -> Pending? {
        guard let p = pending.removeValue(forKey: key) else { return nil }
        host.cancel(p.ticket)
        return p
    }

    /// An action's time ran out with no SIP event taking it to an end.
    func actionTimedOut(key: LegKey, slot: Int) {
        guard pending.read(key, { $0.request.slot }) == slot, let p = pending.removeValue(forKey: key) else { return }
        if key == Self.wakeDialKey(key.local) {
            return answer(p.request, .failed(reason: Self.wakeRegisterTimedOut))
        }
        tell(p.request, ActionAnswer(outcome: .timedOut))
    }

    /// A sleeping device's dial waits on this key while its wake REGISTER is out (no Call-ID exists yet).
    static func wakeDialKey(_ local: Int) -> LegKey { LegKey(local: local, callID: "") }
    /// Why a dial failed whose wake REGISTER got no answer within `action_timeout`.
    static let wakeRegisterTimedOut = "sip_wake_register_timeout"

    func answer(_ request: ActionRequest, _ outcome: ActionOutcome, conversation: String? = nil) {
        var answer = ActionAnswer(outcome: outcome)
        answer.conversation = conversation
        tell(request, answer)
    }

    func tell(_ request: ActionRequest, _ answer: ActionAnswer) {
        host.apply(.answer(request, answer, now: now))
    }

    /// Completes the action waiting on `key` when it is `op` (or `other`). Two plain operands, not a set: a
    /// `Set<ActionOp>` literal was made and hashed at every SIP event that could fulfil an action.
    func fulfil(_ key: LegKey, _ op: ActionOp, or other: ActionOp? = nil, conversation: String? = nil) {
        // The op read in place (a copy of the request before), the entry taken out only when it is fulfilled.
        guard let asked = pending.read(key, { $0.request.op }), asked == op || asked == other,
              let p = settle(key) else { return }
        answer(p.request, .fulfilled, conversation: conversation)
    }

    func fail(_ key: LegKey, status: Int) {
        guard let p = settle(key) else { return }
        answer(p.request, .failed(reason: "sip_\(status)"))
    }

    // MARK: - End of run

    /// Folds every agent's books into the recorder and closes the pool.
    func stop() {
        let now = self.now
        settleCancelled()
        let counters = pool.counters
        func fold<K>(_ book: String, _ values: [K: Int]) {
            for (key, n) in values { books.count(.sip(book, "\(key)"), by: Int64(n), at: now) }
        }
        fold("requests_sent", counters.requestsSent)
        fold("requests_received", counters.requestsReceived)
        fold("responses_sent", counters.responsesSent)
        fold("responses_received", counters.responsesReceived)
        fold("retransmissions_sent", counters.retransmissionsSent)
        fold("retransmissions_received", counters.retransmissionsReceived)
        fold("malformed", counters.malformed)
        fold("timeouts", counters.timeouts)
        fold("stray", counters.stray)
        fold("misdirected", counters.misdirected)
        // Forking behind one address of record: `sip.forks.second_answer`, `sip.forks.elsewhere_200` / `_603`.
        fold("forks", counters.forks)
        // Connections that failed before carrying SIP: `sip.transport_failed.tls_certificate` / `.tls_handshake`.
        fold("transport_failed", counters.transportFailures)
        // `sockets: shared`: `sip.shared_socket.reads` and `.datagrams` (their ratio: the batch a read carried).
        fold("shared_socket", counters.sharedSocket)
        // TLS handshakes (`sip.tls.full` / `sip.tls.resumed`) are booked as they happen (`SIPSignaling+Flow`).
        stopMedia()
        pool.closeAll()
    }
}

/// One device's leg of one SIP call: the device (worker-local index) and the call's Call-ID, kept apart rather than
/// joined into one string at each of a call's several dozen lookups.
struct LegKey: Hashable, Sendable {
    let local: Int
    let callID: String

    /// Hashed by the device alone: a device has a leg or two at a time, told apart by `==`, and hashing the
    /// Call-ID's bytes on every SIP event cost more than the rest of the lookup (issue 33).
    func hash(into hasher: inout Hasher) { hasher.combine(local) }
}

/// Which agent is whose, and the registrations under way.
struct AgentLinks {
    /// By device (worker-local index), and by agent.
    var agent = DenseIntMap()
    var device = DenseIntMap()
    var registering: [Int: Registering] = [:]
    /// Agents opened so far: part of each agent's seed.
    var opened: UInt64 = 0
}

/// A REGISTER under way: when it left, whether it is the device's first (the run's registration phase), and what
/// runs once it is answered.
struct Registering {
    let started: UInt64
    let initial: Bool
    let then: (() -> Void)?
}
