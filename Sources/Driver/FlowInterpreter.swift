import CallModel
import Metrics
import Scenario

/// One call running its flow, as a value state machine: each entry point takes what happened (the call began,
/// an action's answer, a timer, a push the device reported, a view fetched) and returns the effects the worker
/// must apply (send this request, arm that timer, record this). It suspends on actions, timers and pushes and
/// resumes when the matching observation is handed in. No I/O, no clock: tests drive it with a manual clock.
///
/// Devices are shared between calls on one worker, so every entry point takes the worker's `FlowContext`.
struct FlowInterpreter {
    let arrival: Arrival
    let flow: Flow
    /// Role → the device (worker-local index) playing it; with users (`users:`) a ringing device of the role's user
    /// takes the role when the one chosen never rang (`takeOver`).
    var roles: RoleDevices
    let config: FlowConfig
    let startedNanos: UInt64
    /// The flow's counters, shared by its calls on this worker.
    let metrics: FlowMetrics
    var known = CallKnowledge()
    var script: FlowScript
    var log = ActionLog()
    var waiting: Waiting = .none
    /// Bumped whenever the run moves on, so a stale timeout for an earlier wait is ignored.
    var waitToken: UInt64 = 0
    var status = CallStatus()
    var race = RaceState()
    /// Effects decided by the entry point in progress; handed out when it returns.
    private var out: [FlowEffect] = []

    init(arrival: Arrival, flow: Flow, roles: [String: Int], seed: UInt64, config: FlowConfig, now: UInt64,
         metrics: FlowMetrics? = nil) {
        self.metrics = metrics ?? FlowMetrics(flow: flow.name)
        self.arrival = arrival
        self.flow = flow
        self.roles = RoleDevices(roles, order: flow.roles)
        self.config = config
        self.startedNanos = now
        self.script = FlowScript(flow: flow, arrival: arrival, seed: seed)
    }

    /// The devices of every role, in role order.
    func devices() -> [Int] { flow.roles.compactMap { roles[$0] } }

    /// The actions still without an outcome.
    var actionsInFlight: [Action] { log.actions.filter { !$0.isFinished } }

    // MARK: - Entry points

    /// The call begins: runs its first steps. `planned` is the instant the call was due.
    mutating func begin(now: UInt64, planned: UInt64, _ ctx: inout FlowContext) -> [FlowEffect] {
        advance(now: now, planned: planned, &ctx)
        return take()
    }

    /// A timer this call armed went off.
    mutating func timerFired(_ timer: FlowTimer, now: UInt64, _ ctx: inout FlowContext) -> [FlowEffect] {
        switch timer {
        case .resume(let token):
            // The wait ended on time or late: the lag of the timer wheel is the harness's own.
            if waitToken == token, waiting == .timer { advance(now: now, planned: now, &ctx) }
        case .waitTimeout(let token):
            if waitToken == token { waitTimedOut(now: now, &ctx) }
        case .fire(let index, let token):
            fire(index, token: token, now: now, &ctx)
        case .verify(let attempt):
            verify(now: now, attempt: attempt, &ctx)
        case .lateAnswer(let request, let answer):
            answeredLate(request, answer, now: now, &ctx)
        case .poll(let token):
            pollDue(token: token, now: now)
        case .life(let event, let local):
            lifeEvent(event, device: local, now: now, &ctx)
        case .elsewhereGrace:
            elsewhereGraceOver(now: now, ctx.devices)
        }
        return take()
    }

    /// A VoIP push this call's device reported (not after the deadline while ringing: see `terminateApp`).
    mutating func pushReported(device local: Int, conversation uuid: String, now: UInt64,
                               _ ctx: inout FlowContext) -> [FlowEffect] {
        elsewhereRang(local, conversation: uuid)
        if waiting == .push(device: local, conversation: uuid) {
            checkCallerHandle(device: local, conversation: uuid, &ctx)
            pushArrived(device: local, uuid: uuid, now: now, ctx.devices)
            advance(now: now, planned: now, &ctx)
        }
        return take()
    }

    /// A device of this call applied a background push: a wait for its end or its connection may be over.
    mutating func deviceChanged(_ local: Int, now: UInt64, _ ctx: inout FlowContext) -> [FlowEffect] {
        endForgotten(local, now: now, &ctx)
        elsewhereChanged(local, now: now, ctx.devices)
        noteConnected(local, ctx.devices)
        // Each state read where it is: a `let` of the device's manager copied it whole (its tables retained and
        // released) at every push and SIP event. Nothing above changes the devices (they are read only).
        switch waiting {
        case .end(let d, let c) where d == local && Self.state(c, on: local, ctx.devices) ?? .left == .left:
            advance(now: now, planned: now, &ctx)
        case .connected(let d, let c) where d == local && Self.state(c, on: local, ctx.devices) != .joining:
            let state = Self.state(c, on: local, ctx.devices)
            if state == .joined || state == .paused {
                advance(now: now, planned: now, &ctx)
            } else {
                endedUnanswered(c, by: local, now: now, &ctx)
            }
        case .member(let d, let c, let m) where d == local && !Self.mustWait(for: m, in: c, by: d, ctx.devices):
            advance(now: now, planned: now, &ctx)
        default:
            break
        }
        return take()
    }

    /// The state of conversation `uuid` on device `local`; nil when the device has none.
    static func state(_ uuid: String, on local: Int, _ devices: DeviceModel) -> ConversationState? {
        devices[local].manager.conversations[uuid]?.state
    }

    /// Whether the call waits for `local` to report the VoIP push of `uuid`.
    func waitsForPush(_ uuid: String, on local: Int) -> Bool {
        waiting == .push(device: local, conversation: uuid)
    }

    // MARK: - Running steps

    /// Hands out the effects decided so far (every entry point ends with it).
    mutating func take() -> [FlowEffect] {
        defer { out = [] }
        return out
    }

    /// Takes `buffer` (empty, with room: the worker's, from the entry point before) for the effects of the next
    /// entry point, so its appends do not allocate an array per observation; `buffer` gets the empty one back.
    mutating func lend(_ buffer: inout [FlowEffect]) {
        if out.isEmpty, buffer.isEmpty { swap(&out, &buffer) }
    }

    mutating func emit(_ effect: FlowEffect) { out.append(effect) }
    mutating func count(_ name: Metric, by n: Int64 = 1) { out.append(.count(name, by: n)) }

    /// Runs steps until one suspends or the flow ends. `planned` is the instant the resumed step was due.
    mutating func advance(now: UInt64, planned: UInt64, _ ctx: inout FlowContext) {
        var planned = planned
        while true {
            waiting = .none
            waitToken &+= 1
            guard let step = script.nextStep() else {
                if status.cleaningUp {
                    finishElsewhere(now: now, ctx.devices)
                } else {
                    verify(now: now, attempt: 0, &ctx)
                }
                return
            }
            if !execute(step, now: now, planned: planned, &ctx) { return }
            planned = now
        }
    }

    /// Starts one step. Returns true when it completed at once and the flow can go on.
    private mutating func execute(_ step: FlowStep, now: UInt64, planned: UInt64, _ ctx: inout FlowContext) -> Bool {
        switch step.kind {
        case .wait(let distribution):
            return suspend(for: distribution.sample(using: &script.rng), now: now)
        case .waitBehavior(let name):
            return suspend(for: behaviorSample(name), now: now)
        case .branch, .repeatSteps:
            return true  // entered by nextStep
        case .together(let steps, let offset):
            let value = config.replayOffsetNanos ?? offset.value(forCall: arrival.index)
            return startRace(name: step.name, steps, offset: value, now: now)
        default:
            break
        }
        guard let local = device(for: step.role) else {
            fail("step \(step.name) has no device for role \(step.role ?? "?")", now: now, &ctx)
            return false
        }
        if skipsCleanup(step, by: local, ctx.devices) { return true }
        for name in step.kind.actedOnConversations {
            if let uuid = known.conversations[name], ctx.devices[local].manager.conversations[uuid]?.state == .joining {
                // The callee's answer reaches the caller by push; act once the conversation is connected.
                script.retryLastStep()
                return waitFor(.connected(device: local, conversation: uuid), now: now)
            }
        }
        if case .unmerge(let name, let role, _) = step.kind, let uuid = known.conversations[name],
           let member = roles[role], Self.mustWait(for: member, in: uuid, by: local, ctx.devices) {
            // A member is split off only once this device sees it connected (an app offers no other).
            script.retryLastStep()
            return waitFor(.member(device: local, conversation: uuid, member: member), now: now)
        }
        return perform(step, by: local, now: now, planned: planned, &ctx)
    }

    /// Whether `local` must wait before acting on `member` in `uuid`: its conversation is live but does not show
    /// the member connected yet. A conversation that is over needs no wait (the action is refused as ended).
    static func mustWait(for member: Int, in uuid: String, by local: Int, _ devices: DeviceModel) -> Bool {
        guard member != local, let c = devices[local].manager.conversations[uuid],
              c.state == .joined || c.state == .paused else { return false }
        let handle = devices[member].identity.handle.value
        return !c.connectedRemoteMembers.contains { $0.value == handle }
    }

    /// A cleanup end of a conversation someone else's cleanup (or the server) already ended for this device.
    private func skipsCleanup(_ step: FlowStep, by local: Int, _ devices: DeviceModel) -> Bool {
        guard status.cleaningUp, case .end(let name, _) = step.kind else { return false }
        let uuid = known.conversations[name]
        let state = uuid.flatMap { devices[local].manager.conversations[$0]?.state }
        if state == nil || state == .left || state == .leaving { return true }
        if let view = uuid.flatMap({ known.lastViews[$0] }),
           view.ended || view.state(of: devices[local].identity.id) == "left" { return true }
        return false
    }

    /// The step's action or wait on the target's side. Returns true when it completed at once.
    private mutating func perform(_ step: FlowStep, by local: Int, now: UInt64, planned: UInt64,
                                  _ ctx: inout FlowContext) -> Bool {
        switch step.kind {
        case .start(let to, let name, let video):
            start(step, by: local, to: to, conversation: name, video: video, planned: planned, now: now, &ctx)
            return false
        case .redial(let name):
            redial(step, by: local, conversation: name, planned: planned, now: now, &ctx)
            return false
        case .awaitPush(let name):
            guard let uuid = known.conversations[name] else { return failMissing(name, now, &ctx) }
            if ctx.devices[local].manager.conversations.index(forKey: uuid) != nil {
                checkCallerHandle(device: local, conversation: uuid, &ctx)
                pushArrived(device: local, uuid: uuid, now: now, ctx.devices)
                return true
            }
            return waitFor(.push(device: local, conversation: uuid), now: now)
        case .awaitEnd(let name):
            guard let uuid = known.conversations[name] else { return failMissing(name, now, &ctx) }
            if ctx.devices[local].manager.conversations[uuid]?.state ?? .left == .left { return true }
            return waitFor(.end(device: local, conversation: uuid), now: now)
        case .awaitAnswer(let name):
            guard let uuid = known.conversations[name] else { return failMissing(name, now, &ctx) }
            // Connected: go on. Over before anyone answered: the declared end, or a failure (issue 32).
            switch ctx.devices[local].manager.conversations[uuid]?.state {
            case .joining?: return waitFor(.connected(device: local, conversation: uuid), now: now)
            case .joined?, .paused?:
                status.answered = true
                return true
            default:
                endedUnanswered(uuid, by: local, now: now, &ctx)
                return false
            }
        case .wait, .waitBehavior, .branch, .repeatSteps, .together:
            return true
        case .life(let life):
            return lifeStep(life, by: local, now: now, &ctx)
        default:
            return memberStep(step, by: local, planned: planned, now: now, inRace: false, &ctx)
        }
    }

    /// A member action step (join, decline, end, pause, resume, merge, unmerge). Returns false: the flow resumes
    /// from the answer (or has failed).
    mutating func memberStep(_ step: FlowStep, by local: Int, planned: UInt64, now: UInt64, inRace: Bool,
                             _ ctx: inout FlowContext) -> Bool {
        var m = MemberAction(step: step, by: local, planned: planned, inRace: inRace)
        switch step.kind {
        case .join(let name): m.set(.join, name)
        case .decline(let name): m.set(.decline, name, reason: "declined")
        case .end(let name, let reason): m.set(.end, name, reason: reason)
        case .pause(let name): m.set(.pause, name)
        case .resume(let name): m.set(.resume, name)
        case .merge(let name, let with):
            // In a race the merge is fired even before `with` exists (and fails at the device).
            if !inRace, known.conversations[with] == nil { return failMissing(with, now, &ctx) }
            m.set(.merge, name, other: known.conversations[with])
        case .unmerge(let name, let memberRole, let into):
            if !inRace, roles[memberRole] == nil { return failMissing(memberRole, now, &ctx) }
            m.set(.unmerge, name, memberRole: memberRole, into: into)
        default:
            return true
        }
        return member(m, now: now, &ctx)
    }

    func device(for role: String?) -> Int? {
        guard let role else { return nil }
        if role == Flow.hangupRole {
            let side = arrival.callerHangsUp ? flow.roles.first : flow.roles.dropFirst().first
            return side.flatMap { roles[$0] }
        }
        return roles[role]
    }

    /// `answer_after` and `talk` take the arrival's planned sample the first time, fresh draws afterwards.
    private mutating func behaviorSample(_ name: String) -> UInt64 {
        switch name {
        case "answer_after" where !script.usedAnswerAfter:
            script.usedAnswerAfter = true
            return arrival.answerAfterNanos
        case "talk" where !script.usedTalk:
            script.usedTalk = true
            return arrival.talkNanos
        case "answer_after":
            return config.behavior.answerAfter.sample(using: &script.rng)
        default:
            return config.behavior.talk.sample(using: &script.rng)
        }
    }

    private mutating func suspend(for nanos: UInt64, now: UInt64) -> Bool {
        waiting = .timer
        emit(.arm(.resume(token: waitToken), at: now + nanos))
        return false
    }

    private mutating func waitFor(_ waiting: Waiting, now: UInt64) -> Bool {
        self.waiting = waiting
        emit(.arm(.waitTimeout(token: waitToken), at: now + config.actionTimeoutNanos))
        if case .push = waiting {} else { armPoll(now: now) }
        return false
    }

    private mutating func waitTimedOut(now: UInt64, _ ctx: inout FlowContext) {
        switch waiting {
        case .push(let acting, let uuid):
            if let next = takeOver(from: acting, conversation: uuid, ctx.devices) {
                // The device chosen never rang, another device of the user did: the person answers that one.
                count(.elsewhereTakenOver)
                checkCallerHandle(device: next, conversation: uuid, &ctx)
                pushArrived(device: next, uuid: uuid, now: now, ctx.devices)
                advance(now: now, planned: now, &ctx)
                return
            }
            // A lost VoIP push: nobody rang, so the call is missed (unanswered) — its own outcome, `calls.missed`,
            // neither failed nor lost; its conversation is ended with reason `unanswered`.
            count(.flowWait("push_not_received"))
            count(.callsMissedPush)
            status.missed = true
            fail("VoIP push never arrived", now: now, &ctx)
        case .end:
            count(.flowWait("end_not_observed"))
            fail("the end of the conversation never reached this device", now: now, &ctx)
        case .connected:
            count(.flowWait("connect_not_observed"))
            script.skipStep()  // skip the step that waited
            fail("the callee's answer never reached the caller", now: now, &ctx)
        case .member:
            count(.flowWait("member_not_observed"))
            script.skipStep()
            fail("the member's arrival never reached this device", now: now, &ctx)
        default: break
        }
    }

    mutating func failMissing(_ name: String, _ now: UInt64, _ ctx: inout FlowContext) -> Bool {
        fail("no conversation or role named \(name) yet", now: now, &ctx)
        return false
    }

    /// A VoIP push this run waited for (or had already received) was reported: measure dial-to-ring.
    private mutating func pushArrived(device local: Int, uuid: String, now: UInt64, _ devices: DeviceModel) {
        let name = known.conversations.first { $0.value == uuid }?.key
        if let name, let issued = known.startIssued[name], let reported = devices[local].reportedAt[uuid] {
            emit(.record(.dialToRing, micros: Int64((reported &- issued) / 1000)))
        }
    }
}

/// A member action step as one value: who does what to which of the flow's conversations.
struct MemberAction {
    let step: FlowStep
    /// The device (worker-local index).
    let by: Int
    let planned: UInt64
    let inRace: Bool
    var op = ActionOp.join
    /// The flow's name of the conversation acted on.
    var name = ""
    var reason: String?
    /// Merge: the conversation merged in.
    var other: String?
    /// Unmerge: the role moved out, and the flow's name of the conversation it moves into.
    var memberRole: String?
    var into: String?

    init(step: FlowStep, by: Int, planned: UInt64, inRace: Bool) {
        self.step = step
        self.by = by
        self.planned = planned
        self.inRace = inRace
    }

    mutating func set(_ op: ActionOp, _ name: String, reason: String? = nil, other: String? = nil,
                      memberRole: String? = nil, into: String? = nil) {
        (self.op, self.name, self.reason, self.other, self.memberRole, self.into) =
            (op, name, reason, other, memberRole, into)
    }
}

extension FlowStep.Kind {
    /// The conversations a member action works on, which must be connected first (join, start, waits: none).
    var actedOnConversations: [String] {
        switch self {
        // An end is allowed while still connecting: a caller may cancel a call that rings.
        case .pause(let c), .resume(let c), .unmerge(let c, _, _): return [c]
        case .merge(let c, let with): return [c, with]
        default: return []
        }
    }
}
