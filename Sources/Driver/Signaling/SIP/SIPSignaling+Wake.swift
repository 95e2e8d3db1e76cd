import CallModel
import Determinism
import Metrics
import SIPClient

/// The push wake-up path of sleeping SIP devices (`sleep: true`, RFC 8599). A sleeping device registered its push
/// binding (Contact with `pn-provider`, `pn-prid`, `pn-param`) once, then closed its socket: it keeps no
/// registration refreshed and listens to nothing, so the binding lapses at its expiry unless a wake renews it.
/// The SIP server parks an INVITE for it and sends a VoIP push through callstorm's gateway; the device reports
/// the conversation as any VoIP push is reported (`PushIntake`: deadline, termination and blocking rules), opens
/// a new socket, REGISTERs (the wake REGISTER the server delivers the INVITE on), and gets the INVITE. An answer
/// the user gives before the INVITE arrives is held until it does (`answer_before_invite`). When its last call
/// ends, the device sleeps again.
struct WakeState {
    var bundleID = "com.example.callstorm"
    /// This worker's callers' INVITEs, by Call-ID (for `invite_to_push`).
    var inviteSent: [String: UInt64] = [:]
    /// Devices woken by a push: the Call-ID they woke for, when the push was reported, and when their wake
    /// REGISTER was answered.
    var wokeFor: [Int: String] = [:]
    var reportedAt: [Int: UInt64] = [:]
    var registeredAt: [Int: UInt64] = [:]
    /// A waking device on a connection: when its last stage (connected, handshake done) ended, for the next part.
    var stageAt: [Int: UInt64] = [:]
    /// Actions the user took before the INVITE came, by leg key.
    var held: [LegKey: ActionRequest] = [:]
    /// Wakes per device so far: with the seed and the device, what keys each `wake_after` draw (the same draws
    /// in every run of one seed, whatever the order the worker's events come in).
    var wakes: [Int: UInt64] = [:]
    /// Sleeping devices' accounts, made at their first opening and the same at every wake after (`account`).
    var accounts: [Int: SIPAccount] = [:]
    /// Sleeping devices' agents, parked by the pool at their sleep (`SIPAgentPool.park`) under these ids: the next
    /// wake reopens the same agent on a new socket instead of freeing it and making another (~8 objects; issue 33).
    var parked: [Int: Int] = [:]

    /// Whether a wake REGISTER put off for the push of `callID` is still `local`'s to send: the device is woken
    /// for that call still (not for a later one whose push came once the first call ended, or for none).
    func isDue(_ local: Int, for callID: String) -> Bool { wokeFor[local] == callID }
}

extension SIPSignaling {
    /// Device `local`'s account. A user's devices (`users:`) register one address of record, the user's, each its
    /// own contact; one RFC 5626 instance per device, the same at every wake, so its binding is replaced and no
    /// other's. A sleeping device's is kept from its first opening: nothing in it changes between wakes, and its
    /// instance URN, push parameters and their strings cost ~6,000 instructions to make (two openings a wake call;
    /// issue 33). An awake device opens once, so its account is not kept.
    func account(_ local: Int) -> SIPAccount {
        let sleeps = sleeps(local)
        if sleeps, let kept = wake.accounts[local] { return kept }
        let identity = table.devices[local].identity
        let push = sleeps ? PushContactParameters.apnsVoIP(token: identity.apnsToken, team: "TEAMID",
                                                           bundle: wake.bundleID) : nil
        let account = SIPAccount(user: identity.user ?? identity.id, domain: target.domain,
                                 password: target.password, push: push, expires: target.expires,
                                 instance: SIPAccount.instanceURN(device: "dev-\(identity.index)", seed: settings.seed))
        if sleeps { wake.accounts[local] = account }
        return account
    }

    /// A push for `uuid` (the parked INVITE's Call-ID) was reported by `local`: wake and REGISTER.
    func pushReported(_ local: Int, conversation uuid: String, acceptedNanos: UInt64) {
        guard sleeps(local), legs[Self.legKey(local, uuid)] == nil else { return }
        // Another call's push while the device is awake in one (call waiting): its INVITE decides (`callWaiting`).
        if agents.agent[local] != nil, let id = table.devices[local].callID, !callExpects(id, uuid, on: local) {
            return
        }
        let now = self.now
        if let sent = wake.inviteSent[uuid], acceptedNanos >= sent {
            recordWake(.inviteToPush, local, micros: Int64((acceptedNanos - sent) / 1000), at: now)
        }
        wake.wokeFor[local] = uuid
        wake.reportedAt[local] = now
        guard agents.agent[local] == nil else {
            wake.reportedAt[local] = nil  // awake already (in another call): the INVITE comes without a REGISTER
            return
        }
        // A late wake puts the REGISTER off; a lost one goes out and vanishes (`SIPSignaling+Faults`).
        if !faults.isEmpty, wakeFault(local, callID: uuid) { return }
        if let delay = wakeDelay(local), delay > 0 {
            schedule(.wake(local: local, callID: uuid), at: now + delay)
            return
        }
        guard let agent = openAgent(local) else { return }
        agents.registering[local] = Registering(started: now, initial: false, then: nil)
        pool.perform(agent) { $0.register(now: $1) }
    }

    /// One of the wake-up path's figures, and in a run with faults the same on its side of the fault windows
    /// (`fault.<window>.push_to_register`, `no_fault.…`, by the call's planned time), so the report's fault table
    /// sets each window's wake-up against the baseline as it does pushes.
    private func recordWake(_ metric: Metric, _ local: Int, micros: Int64, at now: UInt64) {
        books.record(metric, micros: micros, at: now)
        if let scope = faults.scope(local, acceptedNanos: now) {
            books.record(.scoped(scope, metric), micros: micros, at: now)
        }
    }

    /// `device.wake_after` drawn for this wake of `local`: how long its app takes to send the wake REGISTER.
    private func wakeDelay(_ local: Int) -> UInt64? {
        guard let distribution = spec.wakeAfter else { return nil }
        let count = wake.wakes[local, default: 0]
        wake.wakes[local] = count + 1
        var rng = SeededRandom(keys: settings.seed, UInt64(table.devices[local].identity.index), Self.wakeStream,
                               count)
        return distribution.sample(using: &rng)
    }

    /// Keys `wake_after`'s draws apart from every other stream of the seed ("wake").
    private static let wakeStream: UInt64 = 0x7761_6B65

    /// A wake REGISTER put off (the app's `wake_after`, or a late-wake fault) for the push of `callID` is due:
    /// sent now if the device is still woken for that call and has no agent. Its call over, the run ended, or
    /// the device woken since for another call (whose own wake decides when it REGISTERs): nothing.
    func wakeDue(_ local: Int, callID: String) {
        guard sleeps(local), !books.sealed, wake.isDue(local, for: callID), agents.agent[local] == nil,
              let agent = openAgent(local) else { return }
        if wake.reportedAt[local] == nil { wake.reportedAt[local] = now }
        agents.registering[local] = Registering(started: now, initial: false, then: nil)
        pool.perform(agent) { $0.register(now: $1) }
    }

    /// A REGISTER was answered 200: the wake REGISTER's figure, and on a connection its last part.
    func wokeRegistered(_ local: Int, now: UInt64) {
        let stage = wake.stageAt.removeValue(forKey: local)
        guard let reported = wake.reportedAt.removeValue(forKey: local) else { return }
        recordWake(.pushToRegister, local, micros: Int64((now &- reported) / 1000), at: now)
        if let stage { recordWake(.wakeRegister, local, micros: Int64((now &- stage) / 1000), at: now) }
        wake.registeredAt[local] = now
    }

    /// A waking device's connection reached a stage at `at` (the pool's clock, the loop's): `wake.connect` from
    /// the push reported, `wake.handshake` from the connect. Stages of an awake device's connection (its first
    /// registration) are not the wake-up path's, nor a second connect within one wake (a reconnect: the first
    /// stands, so each wake has one of each part).
    func wakeStage(_ local: Int, _ metric: Metric, at: UInt64) {
        guard let reported = wake.reportedAt[local] else { return }
        if metric == .wakeConnect, let stage = wake.stageAt[local], stage >= reported { return }  // else stale
        let from = metric == .wakeConnect ? reported : wake.stageAt[local]
        guard let from, at >= from else { return }
        recordWake(metric, local, micros: Int64((at - from) / 1000), at: now)
        wake.stageAt[local] = at
    }

    /// Whether the INVITE `callID` is the one a push already reported on `local` (then it is not reported again).
    func wokeFor(_ local: Int, callID: String, now: UInt64) -> Bool {
        if let registered = wake.registeredAt.removeValue(forKey: local) {
            recordWake(.registerToInvite, local, micros: Int64((now &- registered) / 1000), at: now)
        }
        return wake.wokeFor[local] == callID
    }

    /// A join, decline or end for a conversation whose push woke the device but whose INVITE has not come:
    /// held until it does (its action timeout still runs).
    func holdUntilInvite(_ request: ActionRequest) -> Bool {
        let local = request.device
        guard sleeps(local), wake.wokeFor[local] == request.conversation,
              [ActionOp.join, .decline, .end].contains(request.op) else { return false }
        let key = Self.legKey(local, request.conversation)
        if request.kind == .join { books.count(.answerBeforeInvite, at: now) }
        wake.held[key] = request
        awaitAnswer(key, request, started: now)
        return true
    }

    /// The INVITE came: the held action goes out now.
    func releaseHeld(_ key: LegKey) {
        guard let request = wake.held.removeValue(forKey: key),
              pending.read(key, { $0.request.slot }) == request.slot else { return }
        // Not `settle`d: its timeout still runs from the push, and `perform` waits anew under the same slot.
        pending.removeValue(forKey: key)
        perform(request)
    }

    /// A device with no call left goes back to sleep (sleeping devices only). A call it CANCELled keeps it awake
    /// until the agent settles it (`cancelling`, at most 64*T1 after the 487): a 2xx that crossed the CANCEL must
    /// still find it, to be ACKed and ended by a BYE (RFC 3261 §9.1, §15), else the callee stays in the call.
    /// A device woken by a push whose wake REGISTER is still to go (`wake_after`, a late wake) when its call ends
    /// (another device of its user answered or declined it, issue 36) sends it all the same, as the launched app
    /// does: that REGISTER is how a forking server finds it and tells it the call ended (a background push). It
    /// sleeps once the REGISTER is answered (`registered`).
    ///
    /// The sleep is deferred (a posted block), and the device may start anew before it runs: a push woke it
    /// (`wokeFor`), its user dialled (a call, or the dial's wake REGISTER out: `registering`). Then the block
    /// parks nothing: parked mid-REGISTER, the dial waited for an answer that could not come (issue 33, stop 54:
    /// with timers run between posted blocks, a dial ran between two sleep blocks of one device). A device with
    /// any REGISTER of its own out sleeps once it is answered (`registered`), as the comment above says.
    func afterCall(_ local: Int) {
        guard sleeps(local), !hasCall(local) else { return }
        if wake.wokeFor[local] != nil, agents.agent[local] == nil { return }
        wake.wokeFor[local] = nil
        loop.execute { [self] in
            if !hasCall(local), wake.wokeFor[local] == nil, agents.registering[local] == nil { sleep(local) }
        }
    }

    private func hasCall(_ local: Int) -> Bool {
        legs.has(device: local) || cancelling.has(device: local)
    }

    /// Closes the device's socket: nothing reaches it until a push wakes it.
    func sleep(_ local: Int) {
        guard let agent = agents.agent.removeValue(forKey: local) else { return }
        agents.device[agent] = nil
        agents.registering[local] = nil
        wake.stageAt[local] = nil
        faultState.registerLost.remove(local)
        // Actions held for an INVITE that never came (a lost or late wake): their timeouts have answered them.
        if !wake.held.isEmpty { wake.held = wake.held.filter { $0.value.device != local } }
        pool.park(agent)
        wake.parked[local] = agent
    }
}
