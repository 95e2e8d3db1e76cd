import CallModel
import Metrics
import Scenario

/// Actions: the device's conversation manager decides first (a refused action fails at once), then the target;
/// the flow resumes from the answer.
extension FlowInterpreter {
    /// An action's answer came back (the worker read it and applied any media fault).
    mutating func answered(_ request: ActionRequest, _ answer: ActionAnswer, now: UInt64,
                           _ ctx: inout FlowContext) -> [FlowEffect] {
        if request.op == .start {
            startAnswered(request, answer, now: now, &ctx)
        } else {
            memberAnswered(request, answer, now: now, &ctx)
        }
        return take()
    }

    /// Values the `target.api` mapping captured from an answer, usable in later templates. Kept as soon as the
    /// answer arrives, even when a fault holds the answer itself back.
    mutating func captured(_ values: [String: String]) {
        known.captures.merge(values) { _, new in new }
    }

    // MARK: - Start

    mutating func start(_ step: FlowStep, by local: Int, to callees: [String], conversation name: String,
                        video: Bool, planned: UInt64, now: UInt64, _ ctx: inout FlowContext) {
        let slot = newAction(.start, by: local, step: step.name, conversation: "", planned: planned, now: now, &ctx)
        if let refusal = ctx.check(local, .start, conversation: nil) {
            finishAction(slot, .failed(reason: refusal.reason), now: now)
            fail(refusal.description, now: now, &ctx)
            return
        }
        known.startIssued[name] = now
        known.starters[name] = local
        known.callees[name] = callees.compactMap { roles[$0] }
        let outside = flow.outside
        emit(.send(ActionRequest(call: arrival.index, slot: slot, op: .start, device: local, name: name,
                                 to: callees.compactMap { roles[$0] }, video: video,
                                 uri: callees.compactMap { outside[$0]?.uri }.first)))
    }

    private mutating func startAnswered(_ request: ActionRequest, _ answer: ActionAnswer, now: UInt64,
                                        _ ctx: inout FlowContext) {
        let uuid = answer.outcome == .fulfilled ? answer.conversation : nil
        finishAction(request.slot, answer.outcome, now: now, conversation: uuid, view: answer.view)
        known.saw(answer.view)
        guard let uuid else {
            // Refused before the proxy's 100 (a stateless 404): a refusal the flow declares is still its outcome.
            if declaredEnd { return stopAsDeclared(now: now, &ctx) }
            return fail("start failed: \(answer.outcome.label)", now: now, &ctx)
        }
        known.conversations[request.name] = uuid
        let handles = request.to.map { ctx.devices[$0].identity.handle }
        ctx.devices[request.device].manager.reportOutgoing(uuid: uuid, members: handles, video: request.video)
        if let view = answer.view { ctx.devices[request.device].manager.apply(view) }
        advance(now: now, planned: now, &ctx)
    }

    // MARK: - Member actions

    /// A member action on a named conversation: the manager's check first (fails at once when refused), then the
    /// target's endpoint. Returns false: the flow resumes from the answer.
    mutating func member(_ m: MemberAction, now: UInt64, _ ctx: inout FlowContext) -> Bool {
        guard let uuid = known.conversations[m.name] else {
            if m.inRace { raceDone(now: now, &ctx); return false }
            return failMissing(m.name, now, &ctx)
        }
        let kind = m.op.kind
        let other = m.other
        let local = m.by
        // Cleanup and race actions may lose: their failures are counted, not fatal to the flow.
        let tolerant = m.inRace || status.cleaningUp
        let memberLocal = m.memberRole.flatMap { roles[$0] }
        let before = waiting
        let slot = newAction(kind, by: local, step: m.step.name, conversation: uuid, planned: m.planned, now: now,
                             &ctx, with: other, member: memberLocal.map { ctx.devices[$0].identity.id },
                             inRace: m.inRace)
        if m.inRace { waiting = before }  // still the race; newAction marked a plain action
        // In a race the device fires whatever its view says (the other side's push may be in flight): the point is
        // to put conflicting requests before the server. Capabilities still apply.
        let refusal = ctx.check(local, kind, conversation: uuid, with: other)
        if kind == .end, !m.inRace, case .conversationEnded(_)? = refusal {
            // The device knows its conversation ended: it sends no end (LCK fulfils it; the history says why
            // nothing was sent).
            finishAction(slot, .failed(reason: Self.alreadyEnded), now: now)
            count(.action("end", label: "already_ended"))
            advance(now: now, planned: now, &ctx)
            return false
        }
        let racing: Bool
        if case .missingCapability? = refusal { racing = false } else { racing = m.inRace }
        if let refusal, !racing {
            finishAction(slot, .failed(reason: refusal.reason), now: now)
            if case .missingCapability(_, let needed) = refusal {
                count(.missingCapability(needed.names.joined(separator: "+"),
                                                   step: "\(flow.name)/\(m.step.name)"))
            }
            if m.inRace {
                raceDone(now: now, &ctx)
            } else if tolerant {
                advance(now: now, planned: now, &ctx)
            } else {
                fail(refusal.description, now: now, &ctx)
            }
            return false
        }
        ctx.devices[local].manager.begin(kind, conversation: uuid)
        noteDecision(m.op, by: local, conversation: uuid, now: now)
        emit(.send(ActionRequest(call: arrival.index, slot: slot, op: m.op, device: local, conversation: uuid,
                                 reason: m.reason, with: other, member: memberLocal, into: m.into,
                                 inRace: m.inRace, tolerant: tolerant)))
        return false
    }

    private mutating func memberAnswered(_ request: ActionRequest, _ answer: ActionAnswer, now: UInt64,
                                         _ ctx: inout FlowContext) {
        if lifeAnswered(request, answer, now: now, &ctx) { return }
        let (kind, local, uuid) = (request.kind, request.device, request.conversation)
        if answer.alreadyEnded {
            // Ending what already ended is no error: the device takes it as remoteEnded, as LCK does when the
            // conversation is gone. The history keeps the server's word (it refused), so the checker never reads
            // it as an action fulfilled on an ended conversation.
            finishAction(request.slot, .failed(reason: Self.alreadyEnded), now: now)
            count(.action("end", label: "already_ended"))
            ctx.devices[local].manager.remoteEnded(uuid, reason: .remoteEnded)
            if request.inRace { raceDone(now: now, &ctx) } else { advance(now: now, planned: now, &ctx) }
            return
        }
        let outcome = answer.outcome
        finishAction(request.slot, outcome, now: now, view: answer.view, split: answer.split)
        known.saw(answer.view)
        known.saw(answer.split)
        if outcome == .fulfilled {
            noteFulfilled(request)
            ctx.devices[local].manager.fulfilled(kind, conversation: uuid, other: request.with)
            if let view = answer.view { ctx.devices[local].manager.apply(view) }
            if let splitID = answer.conversation, let into = request.into {
                let paused = answer.split?.state(of: ctx.devices[local].manager.localDevice) ?? "held" == "held"
                ctx.devices[local].manager.addSplit(uuid: splitID, paused: paused)
                if let split = answer.split { ctx.devices[local].manager.apply(split) }
                known.conversations[into] = splitID
            }
            if request.inRace { raceDone(now: now, &ctx) } else { advance(now: now, planned: now, &ctx) }
        } else {
            // A lost race leaves the device as it was.
            if !request.inRace { ctx.devices[local].manager.failed(kind, conversation: uuid) }
            if request.inRace {
                raceDone(now: now, &ctx)
            } else if request.tolerant {
                advance(now: now, planned: now, &ctx)
            } else {
                fail("\(kind.rawValue) failed: \(outcome.label)", now: now, &ctx)
            }
        }
    }

    /// An end or decline the server refused because the conversation had already ended: a status the mapping
    /// marks so, or a 404 or 409 for a conversation this device has seen end (a view said so, or a merge moved
    /// it away). Other 4xx stay errors.
    func endedAlready(_ request: ActionRequest, _ answer: ActionAnswer, _ devices: DeviceModel) -> Bool {
        guard request.kind == .end, answer.outcome != .fulfilled, answer.outcome != .timedOut else { return false }
        if answer.alreadyEnded { return true }
        guard answer.status == 404 || answer.status == 409 else { return false }
        let uuid = request.conversation
        return known.lastViews[uuid]?.ended == true || devices[request.device].manager.mergedAway.contains(uuid)
    }

    /// Slow media setup (a device fault): the join is fulfilled later, so its fulfillment time grows.
    mutating func answeredLate(_ request: ActionRequest, _ answer: ActionAnswer, now: UInt64,
                               _ ctx: inout FlowContext) {
        finishAction(request.slot, .fulfilled, now: now, view: answer.view, split: answer.split)
        noteFulfilled(request)
        known.saw(answer.view)
        ctx.devices[request.device].manager.fulfilled(request.kind, conversation: request.conversation,
                                                      other: request.with)
        if let view = answer.view { ctx.devices[request.device].manager.apply(view) }
        advance(now: now, planned: now, &ctx)
    }

    /// The outcome reason of an end of a conversation that had already ended.
    static let alreadyEnded = "already_ended"

    // MARK: - The action log

    mutating func newAction(_ kind: ActionKind, by actor: Int, step: String, conversation: String, planned: UInt64,
                            now: UInt64, _ ctx: inout FlowContext, with other: String? = nil, member: String? = nil,
                            inRace: Bool = false) -> Int {
        let action = Action(id: ctx.actionIDs.make(), kind: kind, conversationUUID: conversation,
                            plannedNanos: planned, startedNanos: now, timeoutNanos: now + config.actionTimeoutNanos)
        if kind == .end, !status.answered, !status.cleaningUp, known.starters.values.contains(actor) {
            status.callerHungUp = true
        }
        if log.actions.capacity == 0 { log.reserve(flow.steps.count) }
        log.actions.append(action)
        log.actors.append(actor)
        log.steps.append(step)
        waiting = .action
        // call and step let the checker's findings be traced to one planned call (repro files, races).
        let race = inRace ? (name: "\(flow.name)/\(self.race.name)", offset: self.race.offset) : nil
        emit(.invoked(ActionRecord(action: action, device: actor, step: step, flow: flow.name, call: arrival.index,
                                   with: other, member: member, race: race)))
        return log.count - 1
    }

    /// Sets an action's outcome once; the worker records it under its kind and its flow step.
    mutating func finishAction(_ slot: Int, _ outcome: ActionOutcome, now: UInt64,
                               conversation: String? = nil, view: ConversationView? = nil,
                               split: ConversationView? = nil) {
        guard slot < log.count, log.actions[slot].finish(outcome, at: now) else { return }
        emit(.finished(ActionRecord(action: log.actions[slot], device: log.actors[slot],
                                    step: log.steps[slot], flow: flow.name, call: arrival.index,
                                    conversation: conversation, view: view, split: split)))
    }
}
