import CallModel
import Chaos
import Foundation
import Metrics
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
                if run.cleaningUp { complete(id, now: now) } else { verify(id, now: now) }
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
        case .together(let steps, let offset):
            let value = settings.replayOffsetNanos ?? offset.value(forCall: run.arrival.index)
            return race(id, name: step.name, steps, offset: value, now: now)
        default:
            break
        }
        guard let local = device(for: step.role, in: run) else {
            fail(id, "step \(step.name) has no device for role \(step.role ?? "?")", now: now)
            return false
        }
        if run.cleaningUp, case .end(let name, _) = step.kind {
            // Someone else's cleanup may already have ended it for this device too.
            let uuid = run.conversations[name]
            let state = uuid.flatMap { devices[local].manager.conversations[$0]?.state }
            if state == nil || state == .left || state == .leaving { return true }
            if let view = uuid.flatMap({ run.lastViews[$0] }),
               view.ended || view.state(of: devices[local].identity.id) == "left" { return true }
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
            return member(id, step, local, .join, "join", name, planned: planned, now: now)
        case .decline(let name):
            return member(id, step, local, .end, "decline", name, reason: "declined", planned: planned, now: now)
        case .end(let name, let reason):
            return member(id, step, local, .end, "end", name, reason: reason, planned: planned, now: now)
        case .pause(let name):
            return member(id, step, local, .pause, "pause", name, planned: planned, now: now)
        case .resume(let name):
            return member(id, step, local, .resume, "resume", name, planned: planned, now: now)
        case .merge(let name, let with):
            guard let other = run.conversations[with] else { return failMissing(id, with, now) }
            return member(id, step, local, .merge, "merge", name, other: other, planned: planned, now: now)
        case .unmerge(let name, let memberRole, let into):
            guard run.roles[memberRole] != nil else { return failMissing(id, memberRole, now) }
            return member(id, step, local, .unmerge, "unmerge", name, memberRole: memberRole, into: into,
                          planned: planned, now: now)
        case .wait, .waitBehavior, .branch, .repeatSteps, .together:
            return true
        }
    }

    enum MediaFault {
        case failure
        case delay(UInt64)
    }

    /// A device fault of the active windows on media setup for this join, decided from the seed.
    private func mediaFault(_ local: Int, now: UInt64) -> MediaFault? {
        guard !faults.isEmpty, let since = sinceLoad(), let planned = faultTime(local),
              let key = faultSubject(local) else { return nil }
        let device = devices[local].identity.index
        // The number of this action in its call: the same join of the same call draws the same, every run.
        let seq = UInt64(calls[key.call]?.actions.count ?? 0)
        let flow = calls[key.call]?.flow.name ?? ""
        guard let (decision, note) = faults.joinDecision(device: device, subject: key.subject, seq: seq,
                                                         plannedSinceLoad: planned, flow: flow) else { return nil }
        recorder.count(MetricName.fault(note.kind), atNanos: now)
        faultLog.add(.init(sinceLoadNanos: since, window: note.window, kind: note.kind, device: device, seq: seq,
                           call: key.call, role: key.role))
        switch decision {
        case .fail: return .failure
        case .delay(let nanos): return .delay(nanos)
        }
    }

    // MARK: - Race mode

    /// Fires the actions of a `together` step from one barrier a millisecond ahead (connections are already
    /// warm from the flow's earlier steps): the first at the barrier, the others `offset` after it, or the first
    /// `-offset` after the others. The late ones are timed from the instant the early ones actually fired, so a
    /// timer that wakes late (a busy machine) shifts the race but never shrinks the offset.
    private func race(_ id: Int, name: String, _ steps: [FlowStep], offset: Int64, now: UInt64) -> Bool {
        guard var run = calls[id] else { return false }
        run.raceSteps = steps
        run.raceName = name
        run.raceOffset = offset
        run.waiting = .race(outstanding: steps.count)
        let early = steps.indices.filter { ($0 == 0) == (offset >= 0) || offset == 0 }
        run.raceLate = steps.indices.filter { !early.contains($0) }
        calls[id] = run
        recorder.count("race.\(run.flow.name)/\(name).runs", atNanos: now)
        let barrier = now + 1_000_000
        for index in early {
            schedule(.fire(call: id, index: index, token: run.waitToken), at: barrier)
        }
        rearm()
        return false
    }

    func fire(_ id: Int, index: Int, token: UInt64, now: UInt64) {
        guard let run = calls[id], run.waitToken == token, case .race = run.waiting, index < run.raceSteps.count
        else { return }
        let step = run.raceSteps[index]
        if !run.raceLate.isEmpty {
            // The first early action fires: the late ones are due `offset` from now.
            let late = run.raceLate
            calls[id]?.raceLate = []
            for i in late {
                schedule(.fire(call: id, index: i, token: token), at: now + UInt64(abs(run.raceOffset)))
            }
            rearm()
        }
        guard let local = device(for: step.role, in: run) else { return raceDone(id, now: now) }
        let started: Bool
        switch step.kind {
        case .join(let c): started = member(id, step, local, .join, "join", c, planned: now, now: now, inRace: true)
        case .decline(let c):
            started = member(id, step, local, .end, "decline", c, reason: "declined", planned: now, now: now,
                             inRace: true)
        case .end(let c, let reason):
            started = member(id, step, local, .end, "end", c, reason: reason, planned: now, now: now, inRace: true)
        case .pause(let c): started = member(id, step, local, .pause, "pause", c, planned: now, now: now, inRace: true)
        case .resume(let c):
            started = member(id, step, local, .resume, "resume", c, planned: now, now: now, inRace: true)
        case .merge(let c, let with):
            started = member(id, step, local, .merge, "merge", c, other: run.conversations[with], planned: now,
                             now: now, inRace: true)
        case .unmerge(let c, let m, let into):
            started = member(id, step, local, .unmerge, "unmerge", c, memberRole: m, into: into, planned: now,
                             now: now, inRace: true)
        default:
            recorder.count("race.unsupported_step", atNanos: now)
            started = false
            raceDone(id, now: now)
        }
        _ = started
    }

    /// One action of the race finished (either way); the flow goes on when all have.
    func raceDone(_ id: Int, now: UInt64) {
        guard case .race(let left)? = calls[id]?.waiting else { return }
        if left <= 1 {
            advance(id, now: now, planned: now)
        } else {
            calls[id]?.waiting = .race(outstanding: left - 1)
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
            // A lost VoIP push: nobody rang, so the call is missed (unanswered) — its own outcome, `calls.missed`,
            // neither failed nor lost; its conversation is ended with reason `unanswered`.
            recorder.count("flow.push_not_received", atNanos: now)
            recorder.count("calls.missed_push", atNanos: now)
            calls[id]?.missed = true
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
                   now: UInt64, with other: String? = nil, member: String? = nil, inRace: Bool = false) -> Int {
        nextActionID += 1
        let action = Action(id: UInt64(index) << 48 | nextActionID, kind: kind, conversationUUID: conversation,
                            plannedNanos: planned, startedNanos: now, timeoutNanos: now + settings.actionTimeoutNanos)
        calls[id]?.actions.append(action)
        calls[id]?.actors.append(actor)
        calls[id]?.steps.append(step)
        calls[id]?.waiting = .action
        recorder.count("action.\(kind.rawValue).started", atNanos: now)
        if let journal, let run = calls[id] {
            // call and step let the checker's findings be traced to one planned call (repro files, races).
            let race = inRace ? (name: "\(run.flow.name)/\(run.raceName)", offset: run.raceOffset) : nil
            journal.history(HistoryText.invoke(t: now &- runStart, op: action.id, device: devices[actor].identity.id,
                                               kind: kind, conversation: conversation, with: other, member: member,
                                               call: run.arrival.index, step: step, race: race))
        }
        return (calls[id]?.actions.count ?? 1) - 1
    }

    /// Sets an action's outcome once, and records it under its kind and its flow step.
    func finishAction(_ id: Int, _ slot: Int, _ outcome: ActionOutcome, now: UInt64, conversation: String? = nil,
                      view: ConversationView? = nil, split: ConversationView? = nil) {
        guard var run = calls[id], slot < run.actions.count, run.actions[slot].finish(outcome, at: now) else { return }
        calls[id] = run
        let action = run.actions[slot]
        if let journal {
            var reason: String?
            if case .failed(let r)? = action.outcome { reason = r }
            journal.history(HistoryText.complete(
                t: now &- runStart, op: action.id, outcome: Self.historyOutcome(action.outcome!), reason: reason,
                conversation: conversation ?? action.conversationUUID, view: view, split: split))
        }
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

    /// ok, fail (certainly without effect: refused locally or a 4xx), or info (indeterminate: it may have
    /// taken effect — a timeout, a reset, a 5xx, an unreadable success).
    static func historyOutcome(_ outcome: ActionOutcome) -> String {
        switch outcome {
        case .fulfilled: return "ok"
        case .timedOut: return "info"
        case .failed(let reason):
            let certain = reason.hasPrefix("http_4") || reason.hasPrefix("missing_capability") ||
                reason.hasPrefix("limit:") || reason.hasPrefix("illegal_state") || reason == "unknown_conversation" ||
                reason == "conversation_ended" || reason == "merge_with_itself" || reason == "connect" ||
                reason == "refused"
            return certain ? "fail" : "info"
        }
    }

    func outcome(of result: Result<ClientResponse, TransportError>, _ endpoint: APIMapping.Endpoint?)
        -> ActionOutcome {
        switch result {
        case .success(let response) where endpoint?.accepts(response.status) == true: return .fulfilled
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
        var vars = deviceVars(local).merging(run.captures) { a, _ in a }
        vars["to.handles"] = "[" + handles.map(handleJSON).joined(separator: ",") + "]"
        if let first = callees.first {
            vars["to.id"] = devices[first].identity.id
            vars["to.handle"] = devices[first].identity.handle.value
        }
        vars["video"] = String(video)
        vars["capabilities"] = "[" + devices[local].manager.configuration.supportedCapabilities.names
            .map { "\"\($0)\"" }.joined(separator: ",") + "]"
        calls[id]?.startIssued[name] = now
        send("start", vars, device: local) { [self] result, endpoint in
            let now = clock.nowNanos()
            var outcome = self.outcome(of: result, endpoint)
            var uuid: String?
            var view: ConversationView?
            if outcome == .fulfilled, case .success(let response) = result, let endpoint {
                let captured = TargetAPI.captures(endpoint, from: response.body)
                calls[id]?.captures.merge(captured) { _, new in new }
                if api.isReference {
                    view = ViewDecoder.conversation(response.body)
                    uuid = view?.uuid
                } else {
                    uuid = captured["conversation.id"]
                }
                if uuid == nil { outcome = .failed(reason: "bad_response") }
            }
            count(result, endpoint: endpoint, badBody: outcome == .failed(reason: "bad_response"), at: now)
            finishAction(id, slot, outcome, now: now, conversation: uuid, view: view)
            calls[id]?.saw(view)
            guard calls[id] != nil else { return }
            guard let uuid else { return fail(id, "start failed: \(outcome.label)", now: now) }
            calls[id]?.conversations[name] = uuid
            callByConversation[uuid] = id
            devices[local].manager.reportOutgoing(uuid: uuid, members: handles, video: video)
            if let view { devices[local].manager.apply(view) }
            advance(id, now: now, planned: now)
        }
    }

    /// A member action on a named conversation: the manager's check first (fails at once when refused), then the
    /// target's endpoint. Returns false: the flow resumes from the response.
    private func member(_ id: Int, _ step: FlowStep, _ local: Int, _ kind: ActionKind, _ op: String,
                        _ name: String, reason: String? = nil, other: String? = nil, memberRole: String? = nil,
                        into: String? = nil, planned: UInt64, now: UInt64, inRace: Bool = false) -> Bool {
        guard let run = calls[id], let uuid = run.conversations[name] else {
            if inRace { raceDone(id, now: now); return false }
            return failMissing(id, name, now)
        }
        // Cleanup and race actions may lose: their failures are counted, not fatal to the flow.
        let tolerant = inRace || run.cleaningUp
        let memberID = memberRole.flatMap { run.roles[$0] }.map { devices[$0].identity.id }
        let slot = newAction(id, kind, by: local, step: step.name, conversation: uuid, planned: planned, now: now,
                             with: other, member: memberID, inRace: inRace)
        if inRace { calls[id]?.waiting = run.waiting }  // still the race; newAction marked a plain action
        // In a race the device fires whatever its view says (the other side's push may be in flight): the point is
        // to put conflicting requests before the server. Capabilities still apply.
        let refusal = devices[local].manager.check(kind, conversation: uuid, with: other)
        let racing = inRace && !(refusal.map { if case .missingCapability = $0 { return true } else { return false } }
                                   ?? false)
        if let refusal, !racing {
            finishAction(id, slot, .failed(reason: refusal.reason), now: now)
            if inRace { raceDone(id, now: now) } else if tolerant { advance(id, now: now, planned: now) } else {
                fail(id, refusal.description, now: now)
            }
            return false
        }
        devices[local].manager.begin(kind, conversation: uuid)
        var vars = deviceVars(local).merging(run.captures) { a, _ in a }
        vars["conversation.id"] = uuid
        vars["reason"] = reason ?? ""
        vars["reason.json"] = reason.map { "\"\($0)\"" } ?? "null"
        vars["device.reported_at"] = reportedAtMillis(local, uuid).map(String.init) ?? "null"
        vars["push.sent_at"] = devices[local].pushSentAt[uuid].map(String.init) ?? "null"
        if let other { vars["with.id"] = other }
        if let memberRole, let m = run.roles[memberRole] {
            vars["member.id"] = devices[m].identity.id
            vars["member.handle"] = devices[m].identity.handle.value
        }
        send(op, vars, device: local) { [self] result, endpoint in
            let now = clock.nowNanos()
            var outcome = self.outcome(of: result, endpoint)
            var view: ConversationView?
            var split: ConversationView?
            var splitID: String?
            if outcome == .fulfilled, case .success(let response) = result, let endpoint {
                let captured = TargetAPI.captures(endpoint, from: response.body)
                calls[id]?.captures.merge(captured) { _, new in new }
                if api.isReference {
                    view = ViewDecoder.conversation(response.body)
                    split = ViewDecoder.split(response.body)
                    splitID = split?.uuid
                    if view == nil { outcome = .failed(reason: "bad_response") }
                } else {
                    splitID = captured["split.id"]
                }
                if kind == .unmerge && splitID == nil { outcome = .failed(reason: "bad_response") }
            }
            count(result, endpoint: endpoint, badBody: outcome == .failed(reason: "bad_response"), at: now)
            if kind == .join, outcome == .fulfilled, let fault = mediaFault(local, now: now) {
                switch fault {
                case .failure:
                    outcome = .failed(reason: "media_setup_failed")
                case .delay(let nanos):
                    // Slow media setup: the join is fulfilled later (its fulfillment time grows).
                    schedule(.later { [self] in
                        let later = clock.nowNanos()
                        finishAction(id, slot, .fulfilled, now: later, view: view, split: split)
                        calls[id]?.saw(view)
                        guard calls[id] != nil else { return }
                        devices[local].manager.fulfilled(kind, conversation: uuid, other: other)
                        if let view { devices[local].manager.apply(view) }
                        advance(id, now: later, planned: later)
                    }, at: now + nanos)
                    rearm()
                    return
                }
            }
            finishAction(id, slot, outcome, now: now, view: view, split: split)
            calls[id]?.saw(view)
            calls[id]?.saw(split)
            guard calls[id] != nil else { return }
            var manager = devices[local].manager
            if outcome == .fulfilled {
                manager.fulfilled(kind, conversation: uuid, other: other)
                if let view { manager.apply(view) }
                if let splitID, let into {
                    manager.addSplit(uuid: splitID, paused: split?.state(of: manager.localDevice) ?? "held" == "held")
                    if let split { manager.apply(split) }
                    calls[id]?.conversations[into] = splitID
                    callByConversation[splitID] = id
                }
                devices[local].manager = manager
                if inRace { raceDone(id, now: now) } else { advance(id, now: now, planned: now) }
            } else {
                if !inRace { manager.failed(kind, conversation: uuid) }  // a lost race leaves the device as it was
                devices[local].manager = manager
                if inRace {
                    raceDone(id, now: now)
                } else if tolerant {
                    advance(id, now: now, planned: now)
                } else {
                    fail(id, "\(kind.rawValue) failed: \(outcome.label)", now: now)
                }
            }
        }
        return false
    }

    // MARK: - Failure, verification, completion

    /// The flow cannot go on: every conversation it still has alive is ended by one of its devices (steps named
    /// `cleanup`), then the call completes as failed.
    func fail(_ id: Int, _ why: String, now: UInt64) {
        guard var run = calls[id] else { return }
        guard !run.failed else { return }
        run.failed = true
        run.failure = why
        run.frames = []  // the rest of the script is skipped; verification and cleanup follow
        recorder.count("flow.\(run.flow.name).failed", atNanos: now)
        calls[id] = run
        advance(id, now: now, planned: now)
    }

    /// After verification: every conversation a device of this call still has alive is ended by it (steps named
    /// `cleanup`, failures tolerated), then the call completes. Normal flows leave nothing alive.
    func cleanUp(_ id: Int, now: UInt64) {
        guard var run = calls[id] else { return }
        var steps: [FlowStep] = []
        for role in run.flow.roles {
            guard let d = run.roles[role] else { continue }
            for (name, uuid) in run.conversations.sorted(by: { $0.key < $1.key }) {
                guard let c = devices[d].manager.conversations[uuid], c.state != .left, c.state != .leaving else {
                    continue
                }
                steps.append(FlowStep(name: "cleanup", role: role,
                                      kind: .end(conversation: name, reason: run.missed ? "unanswered" : "failed")))
            }
        }
        guard !steps.isEmpty else { return complete(id, now: now) }
        run.cleaningUp = true
        run.frames = [Frame(steps: steps, index: 0, remaining: 1)]
        calls[id] = run
        advance(id, now: now, planned: now)
    }

    /// At the end of a flow, the target's view of every conversation is compared with each member device's.
    /// Pushes may still be on their way, so a disagreement is checked again after `settleNanos`, and longer while
    /// the device is behind the server's version (`lastVerifyAttemptWhenBehind`); only a difference that persists
    /// counts as `views.mismatched`.
    func verify(_ id: Int, now: UInt64, attempt: Int = 0) {
        guard let run = calls[id] else { return }
        let uuids = Array(Set(run.conversations.values)).sorted()
        guard settings.verifyViews, !uuids.isEmpty else { return cleanUp(id, now: now) }
        calls[id]?.waiting = .verification(outstanding: uuids.count, attempt: attempt, mismatched: false)
        for uuid in uuids {
            let url = settings.targetURL + "/v1/conversations/\(uuid)"
            var request = ClientRequest(method: "GET", url: url,
                                        timeoutMillis: Int(settings.actionTimeoutNanos / 1_000_000))
            request.collectsHeaders = false
            client.send(request) { [self] result in
                if finished { return }
                let now = clock.nowNanos()
                count(result, at: now)
                guard let run = calls[id], case .verification(let left, let attempt, var mismatched) = run.waiting
                else { return }
                if case .success(let response) = result, response.status == 200,
                   let view = ViewDecoder.conversation(response.body) {
                    for local in run.devices() where devices[local].manager.conversations[uuid] != nil {
                        let problem = devices[local].manager.disagreement(with: view)
                        // Behind: the server changed the conversation after the last view this device saw, so a
                        // push about it is still on its way (a busy machine delays them); wait for it longer.
                        let seen = devices[local].manager.conversations[uuid]?.version ?? 0
                        let behind = problem != nil && seen < view.version
                        let last = attempt >= (behind ? lastVerifyAttemptWhenBehind : lastVerifyAttempt)
                        writeFinal(local, uuid: uuid, server: view, now: now, last: last)
                        guard let problem else { continue }
                        if !last { mismatched = true }
                        if last {
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
                if mismatched {
                    // Pushes may still be on their way: wait longer each time.
                    schedule(.verify(call: id, attempt: attempt + 1), at: now + settleNanos << UInt64(attempt))
                    rearm()
                } else {
                    countChecked(run, now: now)
                    cleanUp(id, now: now)
                }
            }
        }
    }

    /// The `final` history line for one device and conversation: written on the last verification attempt, or on
    /// the first when the views already agree (so each pair is written once).
    private func writeFinal(_ local: Int, uuid: String, server: ConversationView, now: UInt64, last: Bool) {
        guard let journal, let c = devices[local].manager.conversations[uuid] else { return }
        let agrees = devices[local].manager.disagreement(with: server) == nil
        guard agrees || last else { return }
        let state: String
        switch c.state {
        case .idle: state = "ringing"
        case .joining, .joined: state = "joined"
        case .paused: state = "held"
        case .leaving, .left: state = "left"
        }
        journal.history(HistoryText.final(
            t: now &- runStart, device: devices[local].identity.id, conversation: uuid, server: server,
            local: (state, c.members.map { DeviceIdentity.id(forHandleValue: $0.value) },
                    c.activeRemoteMembers.map { DeviceIdentity.id(forHandleValue: $0.value) })))
    }

    /// Pushes on loopback land within milliseconds; half a second is generous without slowing runs down.
    var settleNanos: UInt64 { 500_000_000 }
    /// A disagreement is checked again after 0.5 s before it counts (and `final` is written); while the device has
    /// not yet seen the server's version, after 1, 2 and 4 s more (7.5 s in all).
    var lastVerifyAttempt: Int { 1 }
    var lastVerifyAttemptWhenBehind: Int { 4 }

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
            devices[local].manager.forgetAll()
            devices[local].reportedAt.removeAll()
            devices[local].pushSentAt.removeAll()
            idle.append(local)
        }
        liveActive.subtract(1, ordering: .relaxed)
        liveCompleted.add(1, ordering: .relaxed)
        let outcome = run.missed ? "missed" : (run.failed ? "failed" : "completed")
        recorder.count("calls.\(outcome)", atNanos: now)
        recorder.count("flow.\(run.flow.name).\(run.missed ? "missed" : (run.failed ? "failed_calls" : "completed"))",
                       atNanos: now)
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
