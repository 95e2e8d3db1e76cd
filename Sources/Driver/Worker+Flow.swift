import CallModel
import Foundation
import Results
import Scenario
import Transport

/// The flow interpreter: runs each call's steps in order, one device action at a time, suspending on HTTP,
/// timers and pushes, and resuming from their callbacks (all on the worker's queue).
extension Worker {
    /// Runs steps until one suspends or the flow ends. `planned` is the instant the resumed step was due.
    func advance(_ id: Int, now: UInt64, planned: UInt64) {
        var planned = planned
        while var run = calls[id] {
            run.waiting = .none
            run.waitToken &+= 1
            guard let step = run.nextStep() else {
                calls[id] = run
                verify(id, now: now)
                return
            }
            calls[id] = run
            if !execute(step, id, now: now, planned: planned) { return }
            planned = now
        }
    }

    /// Starts one step. Returns true when it completed at once and the flow can go on.
    private func execute(_ step: FlowStep, _ id: Int, now: UInt64, planned: UInt64) -> Bool {
        guard let run = calls[id] else { return false }
        switch step.kind {
        case .wait(let distribution):
            return suspend(id, for: distribution.sample(using: &calls[id]!.rng), now: now)
        case .waitBehavior(let name):
            return suspend(id, for: behaviorSample(id, name), now: now)
        case .branch, .repeatSteps:
            return true  // entered by nextStep
        default:
            break
        }
        guard let local = device(for: step.role, in: run) else {
            fail(id, "step \(step.name) has no device for role \(step.role ?? "?")", now: now)
            return false
        }
        for name in step.kind.actedOnConversations {
            if let uuid = run.conversations[name], devices[local].manager.conversations[uuid]?.state == .joining {
                // The callee's answer reaches the caller by push; act once the conversation is connected.
                calls[id]?.retryLastStep()
                return waitFor(id, .connected(device: local, conversation: uuid), now: now)
            }
        }
        switch step.kind {
        case .start(let to, let name, let video):
            start(id, step: step, by: local, to: to, conversation: name, video: video, planned: planned, now: now)
            return false
        case .awaitPush(let name):
            guard let uuid = run.conversations[name] else { return failMissing(id, name, now) }
            if devices[local].manager.conversations[uuid] != nil {
                pushArrived(id, device: local, uuid: uuid, now: now)
                return true
            }
            return waitFor(id, .push(device: local, conversation: uuid), now: now)
        case .awaitEnd(let name):
            guard let uuid = run.conversations[name] else { return failMissing(id, name, now) }
            if devices[local].manager.conversations[uuid]?.state ?? .left == .left { return true }
            return waitFor(id, .end(device: local, conversation: uuid), now: now)
        case .join(let name):
            return member(id, step, local, .join, "join", name, body: [:], planned: planned, now: now)
        case .decline(let name):
            return member(id, step, local, .end, "end", name, body: ["reason": "declined"], planned: planned, now: now)
        case .end(let name, let reason):
            var body: [String: String] = [:]
            if let reason { body["reason"] = reason }
            return member(id, step, local, .end, "end", name, body: body, planned: planned, now: now)
        case .pause(let name):
            return member(id, step, local, .pause, "pause", name, body: [:], planned: planned, now: now)
        case .resume(let name):
            return member(id, step, local, .resume, "resume", name, body: [:], planned: planned, now: now)
        case .merge(let name, let with):
            guard let other = run.conversations[with] else { return failMissing(id, with, now) }
            return member(id, step, local, .merge, "merge", name, body: ["with": other], other: other,
                          planned: planned, now: now)
        case .unmerge(let name, let memberRole, let into):
            guard let m = run.roles[memberRole] else { return failMissing(id, memberRole, now) }
            return member(id, step, local, .unmerge, "unmerge", name, body: ["member": devices[m].identity.id],
                          into: into, planned: planned, now: now)
        case .wait, .waitBehavior, .branch, .repeatSteps:
            return true
        }
    }

    private func device(for role: String?, in run: FlowRun) -> Int? {
        guard let role else { return nil }
        if role == Flow.hangupRole {
            let side = run.arrival.callerHangsUp ? run.flow.roles.first : run.flow.roles.dropFirst().first
            return side.flatMap { run.roles[$0] }
        }
        return run.roles[role]
    }

    /// `answer_after` and `talk` take the arrival's planned sample the first time, fresh draws afterwards.
    private func behaviorSample(_ id: Int, _ name: String) -> UInt64 {
        guard var run = calls[id] else { return 0 }
        let value: UInt64
        switch name {
        case "answer_after" where !run.usedAnswerAfter:
            run.usedAnswerAfter = true
            value = run.arrival.answerAfterNanos
        case "talk" where !run.usedTalk:
            run.usedTalk = true
            value = run.arrival.talkNanos
        case "answer_after":
            value = settings.behavior.answerAfter.sample(using: &run.rng)
        default:
            value = settings.behavior.talk.sample(using: &run.rng)
        }
        calls[id] = run
        return value
    }

    private func suspend(_ id: Int, for nanos: UInt64, now: UInt64) -> Bool {
        calls[id]?.waiting = .timer
        schedule(.resume(call: id, token: calls[id]!.waitToken), at: now + nanos)
        rearm()
        return false
    }

    private func waitFor(_ id: Int, _ waiting: Waiting, now: UInt64) -> Bool {
        calls[id]?.waiting = waiting
        schedule(.waitTimeout(call: id, token: calls[id]!.waitToken), at: now + settings.actionTimeoutNanos)
        rearm()
        return false
    }

    func resume(_ id: Int, token: UInt64, now: UInt64) {
        guard let run = calls[id], run.waitToken == token, run.waiting == .timer else { return }
        // The wait ended on time or late: the lag of the timer wheel is the harness's own.
        advance(id, now: now, planned: now)
    }

    func waitTimedOut(_ id: Int, token: UInt64, now: UInt64) {
        guard let run = calls[id], run.waitToken == token else { return }
        switch run.waiting {
        case .push: 
            recorder.count("flow.push_not_received", atNanos: now)
            fail(id, "VoIP push never arrived", now: now)
        case .end:
            recorder.count("flow.end_not_observed", atNanos: now)
            fail(id, "the end of the conversation never reached this device", now: now)
        case .connected:
            recorder.count("flow.connect_not_observed", atNanos: now)
            if var skipped = calls[id], !skipped.frames.isEmpty {
                skipped.frames[skipped.frames.count - 1].index += 1  // skip the step that waited
                calls[id] = skipped
            }
            fail(id, "the callee's answer never reached the caller", now: now)
        default: break
        }
    }

    private func failMissing(_ id: Int, _ name: String, _ now: UInt64) -> Bool {
        fail(id, "no conversation or role named \(name) yet", now: now)
        return false
    }

    /// A VoIP push this run waited for (or had already received) was reported: measure dial-to-ring.
    func pushArrived(_ id: Int, device local: Int, uuid: String, now: UInt64) {
        guard let run = calls[id] else { return }
        let name = run.conversations.first { $0.value == uuid }?.key
        if let name, let issued = run.startIssued[name], let reported = devices[local].reportedAt[uuid] {
            recorder.record("dial_to_ring", micros: Int64((reported &- issued) / 1000), atNanos: now)
        }
    }

    // MARK: - Actions

    func newAction(_ id: Int, _ kind: ActionKind, by actor: Int, step: String, conversation: String, planned: UInt64,
                   now: UInt64) -> Int {
        nextActionID += 1
        let action = Action(id: UInt64(index) << 48 | nextActionID, kind: kind, conversationUUID: conversation,
                            plannedNanos: planned, startedNanos: now, timeoutNanos: now + settings.actionTimeoutNanos)
        calls[id]?.actions.append(action)
        calls[id]?.actors.append(actor)
        calls[id]?.steps.append(step)
        calls[id]?.waiting = .action
        recorder.count("action.\(kind.rawValue).started", atNanos: now)
        return (calls[id]?.actions.count ?? 1) - 1
    }

    /// Sets an action's outcome once, and records it under its kind and its flow step.
    func finishAction(_ id: Int, _ slot: Int, _ outcome: ActionOutcome, now: UInt64) {
        guard var run = calls[id], slot < run.actions.count, run.actions[slot].finish(outcome, at: now) else { return }
        calls[id] = run
        let action = run.actions[slot]
        let kind = action.kind.rawValue
        let label = action.outcome!.label
        recorder.count("action.\(kind).\(label)", atNanos: now)
        let micros = Int64((now - action.startedNanos) / 1000)
        recorder.record("\(kind).fulfillment", micros: micros, atNanos: now)
        recorder.record("\(kind).fulfillment_from_planned", micros: Int64((now &- action.plannedNanos) / 1000),
                        atNanos: now)
        recorder.record("step.\(run.flow.name)/\(run.steps[slot])", micros: micros, atNanos: now)
        if case .failed(let reason)? = action.outcome { recorder.count("action.\(kind).failed.\(reason)", atNanos: now) }
        if let journal {
            var reason = ""
            if case .failed(let r)? = action.outcome { reason = r }
            journal.action(ActionRow(
                id: action.id, kind: kind, step: "\(run.flow.name)/\(run.steps[slot])",
                device: devices[run.actors[slot]].identity.id, conversation: action.conversationUUID,
                plannedNanos: action.plannedNanos &- runStart, startedNanos: action.startedNanos &- runStart,
                finishedNanos: now &- runStart, outcome: label, reason: reason))
        }
    }

    func outcome(of result: Result<ClientResponse, TransportError>, expect: Int) -> ActionOutcome {
        switch result {
        case .success(let response) where response.status == expect: return .fulfilled
        case .success(let response): return .failed(reason: "http_\(response.status)")
        case .failure(.timeout): return .timedOut
        case .failure(let error): return .failed(reason: error.kind)
        }
    }

    private func start(_ id: Int, step: FlowStep, by local: Int, to roles: [String], conversation name: String,
                       video: Bool, planned: UInt64, now: UInt64) {
        guard let run = calls[id] else { return }
        let slot = newAction(id, .start, by: local, step: step.name, conversation: "", planned: planned, now: now)
        if let refusal = devices[local].manager.check(.start, conversation: nil) {
            finishAction(id, slot, .failed(reason: refusal.reason), now: now)
            fail(id, refusal.description, now: now)
            return
        }
        let callees = roles.compactMap { run.roles[$0] }
        let handles = callees.map { devices[$0].identity.handle }
        let caps = devices[local].manager.configuration.supportedCapabilities.names
            .map { "\"\($0)\"" }.joined(separator: ",")
        let body = "{\"caller\":\"\(devices[local].identity.id)\",\"handles\":[" +
            handles.map(handleJSON).joined(separator: ",") + "],\"video\":\(video),\"capabilities\":[\(caps)]}"
        calls[id]?.startIssued[name] = now
        request("POST", "/v1/conversations", body) { [self] result in
            let now = clock.nowNanos()
            var outcome = self.outcome(of: result, expect: 201)
            var view: ConversationView?
            if outcome == .fulfilled, case .success(let response) = result {
                view = ViewDecoder.conversation(response.body)
                if view == nil { outcome = .failed(reason: "bad_response") }
            }
            count(result, at: now)
            finishAction(id, slot, outcome, now: now)
            guard calls[id] != nil else { return }
            guard let view else { return fail(id, "start failed: \(outcome.label)", now: now) }
            calls[id]?.conversations[name] = view.uuid
            callByConversation[view.uuid] = id
            devices[local].manager.reportOutgoing(uuid: view.uuid, members: handles, video: video)
            devices[local].manager.apply(view)
            advance(id, now: now, planned: now)
        }
    }

    /// A member action on a named conversation: the manager's check first (fails at once when refused), then the
    /// target's endpoint. Returns false: the flow resumes from the response.
    private func member(_ id: Int, _ step: FlowStep, _ local: Int, _ kind: ActionKind, _ endpoint: String,
                        _ name: String, body fields: [String: String], other: String? = nil, into: String? = nil,
                        planned: UInt64, now: UInt64) -> Bool {
        guard let uuid = calls[id]?.conversations[name] else { return failMissing(id, name, now) }
        let slot = newAction(id, kind, by: local, step: step.name, conversation: uuid, planned: planned, now: now)
        if let refusal = devices[local].manager.check(kind, conversation: uuid, with: other) {
            finishAction(id, slot, .failed(reason: refusal.reason), now: now)
            fail(id, refusal.description, now: now)
            return false
        }
        devices[local].manager.begin(kind, conversation: uuid)
        var body = "{\"device\":\"\(devices[local].identity.id)\""
        for (k, v) in fields.sorted(by: { $0.key < $1.key }) { body += ",\"\(k)\":\"\(v)\"" }
        body += "}"
        request("POST", "/v1/conversations/\(uuid)/\(endpoint)", body) { [self] result in
            let now = clock.nowNanos()
            var outcome = self.outcome(of: result, expect: 200)
            var view: ConversationView?
            var split: ConversationView?
            if outcome == .fulfilled, case .success(let response) = result {
                view = ViewDecoder.conversation(response.body)
                split = ViewDecoder.split(response.body)
                if view == nil || (kind == .unmerge && split == nil) { outcome = .failed(reason: "bad_response") }
            }
            count(result, at: now)
            finishAction(id, slot, outcome, now: now)
            guard calls[id] != nil else { return }
            var manager = devices[local].manager
            if outcome == .fulfilled, let view {
                manager.fulfilled(kind, conversation: uuid, other: other)
                manager.apply(view)
                if let split, let into {
                    manager.addSplit(uuid: split.uuid, view: split, paused: split.state(of: manager.localDevice) == "held")
                    calls[id]?.conversations[into] = split.uuid
                    callByConversation[split.uuid] = id
                }
                devices[local].manager = manager
                advance(id, now: now, planned: now)
            } else {
                manager.failed(kind, conversation: uuid)
                devices[local].manager = manager
                fail(id, "\(kind.rawValue) failed: \(outcome.label)", now: now)
            }
        }
        return false
    }

    // MARK: - Failure, verification, completion

    /// The flow cannot go on: every conversation it still has alive is ended by one of its devices (steps named
    /// `cleanup`), then the call completes as failed.
    func fail(_ id: Int, _ why: String, now: UInt64) {
        guard var run = calls[id] else { return }
        if run.failed {
            // A cleanup step failed too: give up on the rest.
            run.frames = []
            calls[id] = run
            verify(id, now: now)
            return
        }
        run.failed = true
        run.failure = why
        recorder.count("flow.\(run.flow.name).failed", atNanos: now)
        var cleanup: [FlowStep] = []
        for (name, uuid) in run.conversations.sorted(by: { $0.key < $1.key }) {
            if let role = run.flow.roles.first(where: { role in
                guard let d = run.roles[role], let c = devices[d].manager.conversations[uuid] else { return false }
                return c.state != .left && c.state != .leaving
            }) {
                cleanup.append(FlowStep(name: "cleanup", role: role, kind: .end(conversation: name, reason: "failed")))
            }
        }
        run.frames = [Frame(steps: cleanup, index: 0, remaining: 1)]
        calls[id] = run
        advance(id, now: now, planned: now)
    }

    /// At the end of a flow, the target's view of every conversation is compared with each member device's.
    /// Pushes may still be on their way, so a disagreement is checked once more after `settleNanos`; only a
    /// difference that persists counts as `views.mismatched`.
    func verify(_ id: Int, now: UInt64, attempt: Int = 0) {
        guard let run = calls[id] else { return }
        let uuids = Array(Set(run.conversations.values)).sorted()
        guard settings.verifyViews, !uuids.isEmpty else { return complete(id, now: now) }
        calls[id]?.waiting = .verification(outstanding: uuids.count, attempt: attempt, mismatched: false)
        for uuid in uuids {
            request("GET", "/v1/conversations/\(uuid)", "") { [self] result in
                let now = clock.nowNanos()
                count(result, at: now)
                guard let run = calls[id], case .verification(let left, let attempt, var mismatched) = run.waiting
                else { return }
                if case .success(let response) = result, response.status == 200,
                   let view = ViewDecoder.conversation(response.body) {
                    for local in run.devices() where devices[local].manager.conversations[uuid] != nil {
                        guard let problem = devices[local].manager.disagreement(with: view) else { continue }
                        mismatched = true
                        if attempt > 0 {
                            recorder.count("views.mismatched", atNanos: now)
                            if notes.count < 20 {
                                notes.append("view mismatch in \(run.flow.name): \(devices[local].identity.id) " +
                                             "on \(uuid): \(problem)")
                            }
                        }
                    }
                } else {
                    recorder.count("views.unverifiable", atNanos: now)
                }
                guard left <= 1 else {
                    calls[id]?.waiting = .verification(outstanding: left - 1, attempt: attempt, mismatched: mismatched)
                    return
                }
                if mismatched && attempt == 0 {
                    schedule(.verify(call: id), at: now + settleNanos)
                    rearm()
                } else {
                    countChecked(run, now: now)
                    complete(id, now: now)
                }
            }
        }
    }

    /// Pushes on loopback land within milliseconds; half a second is generous without slowing runs down.
    var settleNanos: UInt64 { 500_000_000 }

    private func countChecked(_ run: FlowRun, now: UInt64) {
        let views = run.devices().reduce(0) { sum, local in
            sum + Set(run.conversations.values).filter { devices[local].manager.conversations[$0] != nil }.count
        }
        recorder.count("views.checked", by: Int64(views), atNanos: now)
    }

    func complete(_ id: Int, now: UInt64) {
        guard let run = calls.removeValue(forKey: id) else { return }
        for uuid in run.conversations.values { callByConversation[uuid] = nil }
        for local in run.devices() {
            devices[local].callID = nil
            for uuid in devices[local].manager.conversations.keys { devices[local].manager.forget(uuid) }
            devices[local].reportedAt.removeAll()
            idle.append(local)
        }
        liveActive.subtract(1, ordering: .relaxed)
        liveCompleted.add(1, ordering: .relaxed)
        recorder.count(run.failed ? "calls.failed" : "calls.completed", atNanos: now)
        recorder.count("flow.\(run.flow.name).\(run.failed ? "failed_calls" : "completed")", atNanos: now)
        if !run.failed {
            recorder.record("call.duration", micros: Int64((now - run.startedNanos) / 1000), atNanos: now)
        }
        checkDrained()
    }

    func checkDrained() {
        if arrivalsDone, calls.isEmpty, let done = onDrained {
            onDrained = nil
            done()
        }
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

func handleJSON(_ h: Handle) -> String {
    "{\"kind\":\"\(h.kind.rawValue)\",\"value\":\"\(h.value)\",\"displayName\":\"\(h.displayName)\"}"
}
