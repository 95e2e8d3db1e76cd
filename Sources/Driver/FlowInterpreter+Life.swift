import CallModel
import Faults
import Metrics
import Scenario

/// The phone's own life (issue 37), as a call's flow carries it out: the system acts on the device's
/// conversations and the device tells its server unasked, through the same actions the user's steps take (so every
/// signaling kind carries them as it carries those: the mapping's requests over HTTP or the device socket; over SIP a
/// re-INVITE holding the media, a BYE, a 486 or 603). The actions are logged under the step `life.<event>`, tolerated
/// (a failure never fails the flow) and, from a chaos window, made beside the flow's own wait, which they leave as it
/// was: the flow finds the conversation as the event left it.
extension FlowInterpreter {
    /// A life event a chaos window drew for `local` is due (`FlowTimer.life`).
    mutating func lifeEvent(_ event: LifeEvent, device local: Int, now: UInt64, _ ctx: inout FlowContext) {
        guard !status.failed, !status.cleaningUp else { return }
        if case .verification = waiting { return }
        let before = waiting
        _ = act(event, by: local, on: nil, now: now, &ctx)
        waiting = before
    }

    /// A life step of the flow: its actions go out and the flow goes on once they are answered (at once when it
    /// made none).
    mutating func lifeStep(_ step: LifeStep, by local: Int, now: UInt64, _ ctx: inout FlowContext) -> Bool {
        let event: LifeEvent
        switch step.kind {
        case .interrupted:
            let hold = step.interruption == .hold || (step.interruption == .either && script.rng.nextUnit() < 0.5)
            event = .interrupted(hold: hold)
        case .managerReset: event = .managerReset
        case .relaunch: event = .relaunch
        case .filtered: event = .filtered
        }
        let sent = act(event, by: local, on: known.conversations[step.conversation], now: now, &ctx)
        guard sent > 0 else { return true }
        waiting = .life(outstanding: sent)
        return false
    }

    /// Counts the event and sends the actions it makes; returns how many went out.
    private mutating func act(_ event: LifeEvent, by local: Int, on named: String?, now: UInt64,
                              _ ctx: inout FlowContext) -> Int {
        count(.life(event.word))
        if case .interrupted(let hold) = event { count(.life(hold ? "interrupted_hold" : "interrupted_end")) }
        let live = liveConversations(of: local, ctx.devices)
        var actions: [(ActionOp, String)] = []
        switch event {
        case .interrupted(let hold):
            let uuid = named ?? live.first { ctx.devices[local].manager.conversations[$0]?.state == .joined }
            if let uuid { actions = [(hold ? .pause : .end, uuid)] }
        case .managerReset:
            actions = live.map { (.end, $0) }
        case .relaunch:
            emit(.relaunched(device: local))
            // `rejoin`: the app reports again the calls its server still holds it in and carries on; `end` ends them.
            switch config.life.relaunch {
            case .end: actions = live.map { (.end, $0) }
            case .rejoin: break
            case .endOnEvent: known.forgotten[local] = live
            }
        case .filtered:
            let ringing = live.filter { ctx.devices[local].manager.conversations[$0]?.state == .idle }
            if let uuid = named ?? ringing.first { actions = [(.decline, uuid)] }
        }
        var sent = 0
        for (op, uuid) in actions {
            if ctx.check(local, op.kind, conversation: uuid) != nil {
                count(.lifeSkipped)
                continue
            }
            let slot = newAction(op.kind, by: local, step: event.step, conversation: uuid, planned: now, now: now, &ctx)
            ctx.devices[local].manager.begin(op.kind, conversation: uuid)
            emit(.send(ActionRequest(call: arrival.index, slot: slot, op: op, device: local, conversation: uuid,
                                     reason: op == .pause ? nil : event.word, tolerant: true)))
            sent += 1
        }
        if actions.isEmpty, known.forgotten[local] == nil { count(.lifeSkipped) }
        return sent
    }

    /// A relaunched device that lost its calls (`end_on_event`) hears its next push or socket event: it ends every
    /// conversation it lost that is still alive. The flow's wait is left as it was.
    mutating func endForgotten(_ local: Int, now: UInt64, _ ctx: inout FlowContext) {
        guard let lost = known.forgotten.removeValue(forKey: local) else { return }
        let before = waiting
        for uuid in lost where ctx.check(local, .end, conversation: uuid) == nil {
            let slot = newAction(.end, by: local, step: LifeEvent.relaunch.step, conversation: uuid, planned: now,
                                 now: now, &ctx)
            ctx.devices[local].manager.begin(.end, conversation: uuid)
            emit(.send(ActionRequest(call: arrival.index, slot: slot, op: .end, device: local, conversation: uuid,
                                     reason: LifeEvent.relaunch.word, tolerant: true)))
        }
        waiting = before
    }

    /// The call's conversations `local` still has alive, in the flow's name order.
    private func liveConversations(of local: Int, _ devices: DeviceModel) -> [String] {
        known.conversations.sorted { $0.key < $1.key }.map(\.value).filter { uuid in
            guard let state = devices[local].manager.conversations[uuid]?.state else { return false }
            return state != .left && state != .leaving
        }
    }

    /// The answer to an action a life event made: the device's view follows it, and a life step goes on once all
    /// are in. False for any other action.
    mutating func lifeAnswered(_ request: ActionRequest, _ answer: ActionAnswer, now: UInt64,
                               _ ctx: inout FlowContext) -> Bool {
        guard request.slot < log.count, log.steps[request.slot].hasPrefix("life.") else { return false }
        let (kind, local, uuid) = (request.kind, request.device, request.conversation)
        if answer.alreadyEnded {
            finishAction(request.slot, .failed(reason: Self.alreadyEnded), now: now)
            ctx.devices[local].manager.remoteEnded(uuid, reason: .remoteEnded)
        } else {
            finishAction(request.slot, answer.outcome, now: now, view: answer.view)
            known.saw(answer.view)
            if answer.outcome == .fulfilled {
                ctx.devices[local].manager.fulfilled(kind, conversation: uuid)
                if let view = answer.view { ctx.devices[local].manager.apply(view) }
            } else {
                ctx.devices[local].manager.failed(kind, conversation: uuid)
            }
        }
        count(answer.outcome == .fulfilled ? .lifeActionsFulfilled : .lifeActionsFailed)
        if case .life(let left) = waiting {
            if left <= 1 { advance(now: now, planned: now, &ctx) } else { waiting = .life(outstanding: left - 1) }
        } else {
            // From a window: a wait of the flow's on this device (its end, its connection) may be over now.
            for effect in deviceChanged(local, now: now, &ctx) { emit(effect) }
        }
        return true
    }
}
