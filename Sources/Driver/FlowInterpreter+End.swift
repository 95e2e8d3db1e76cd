import CallModel
import Metrics
import Scenario

// MARK: - Race mode

extension FlowInterpreter {
    /// Fires the actions of a `together` step from one barrier a millisecond ahead (connections are already
    /// warm from the flow's earlier steps): the first at the barrier, the others `offset` after it, or the first
    /// `-offset` after the others. The late ones are timed from the instant the early ones actually fired, so a
    /// timer that wakes late (a busy machine) shifts the race but never shrinks the offset.
    mutating func startRace(name: String, _ steps: [FlowStep], offset: Int64, now: UInt64) -> Bool {
        race.steps = steps
        race.name = name
        race.offset = offset
        waiting = .race(outstanding: steps.count)
        let early = steps.indices.filter { ($0 == 0) == (offset >= 0) || offset == 0 }
        race.late = steps.indices.filter { !early.contains($0) }
        count(.raceRuns("\(flow.name)/\(name)"))
        let barrier = now + 1_000_000
        for index in early {
            emit(.arm(.fire(index: index, token: waitToken), at: barrier))
        }
        return false
    }

    mutating func fire(_ index: Int, token: UInt64, now: UInt64, _ ctx: inout FlowContext) {
        guard waitToken == token, case .race = waiting, index < race.steps.count else { return }
        let step = race.steps[index]
        if !race.late.isEmpty {
            // The first early action fires: the late ones are due `offset` from now.
            let late = race.late
            race.late = []
            for i in late {
                emit(.arm(.fire(index: i, token: token), at: now + UInt64(abs(race.offset))))
            }
        }
        guard let local = device(for: step.role) else { return raceDone(now: now, &ctx) }
        switch step.kind {
        case .join, .decline, .end, .pause, .resume, .merge, .unmerge:
            _ = memberStep(step, by: local, planned: now, now: now, inRace: true, &ctx)
        default:
            count(.raceUnsupportedStep)
            raceDone(now: now, &ctx)
        }
    }

    /// One action of the race finished (either way); the flow goes on when all have.
    mutating func raceDone(now: UInt64, _ ctx: inout FlowContext) {
        guard case .race(let left) = waiting else { return }
        if left <= 1 {
            advance(now: now, planned: now, &ctx)
        } else {
            waiting = .race(outstanding: left - 1)
        }
    }
}

// MARK: - Failure, verification, completion

extension FlowInterpreter {
    /// iOS kills an app that reports a VoIP push too late: the call is never shown (the call is missed, ended
    /// as unanswered), and every action the app had in flight fails (`app_terminated`). Applied while the call
    /// waits for this push (the callee is only ringing); a late push in a call that already moved on is counted
    /// as a termination and reported, since the flow's other devices act on that conversation.
    /// `withoutCall`: terminated instead for a VoIP push that carried no new call (`device.on_voip_without_call:
    /// terminate`; the worker counts that termination itself).
    mutating func terminateApp(_ local: Int, now: UInt64, withoutCall: Bool = false,
                               _ ctx: inout FlowContext) -> [FlowEffect] {
        if !withoutCall { count(.devicesTerminatedForMissedDeadline) }
        if withoutCall, actionOut {
            // Another device's action is still at the target: the flow goes on, and finds this device's
            // conversations ended by the termination.
            count(.callsAppTerminated)
            return take()
        }
        for (slot, action) in log.actions.enumerated() where !action.isFinished && log.actors[slot] == local {
            finishAction(slot, .failed(reason: "app_terminated"), now: now)
        }
        count(.callsAppTerminated)
        status.missed = true
        fail(withoutCall ? "the app was terminated: a VoIP push carried no new call and it reported none"
             : "the app was terminated: it reported the VoIP push after the deadline", now: now, &ctx)
        return take()
    }

    /// Whether the flow waits for something it sent (an action, a race, views): it cannot stop before that returns.
    private var actionOut: Bool {
        switch waiting {
        case .action, .race, .verification: return true
        default: return false
        }
    }

    /// The flow cannot go on: every conversation it still has alive is ended by one of its devices (steps named
    /// `cleanup`), then the call completes as failed.
    mutating func fail(_ why: String, now: UInt64, _ ctx: inout FlowContext) {
        guard !status.failed else { return }
        // The caller gave up before anyone answered (its CANCEL, or the outside caller's): a missed call, never
        // a server failure (issue 32). A refusal with a status is the server's word, and stays a failure.
        if abandonedByCaller(ctx.devices) {
            status.missed = true
            // Apart from the missed calls whose push was lost: the verdict's "did nothing" spares these (the
            // devices rang; their callers chose to hang up).
            count(.callsMissedAbandoned)
        }
        status.failed = true
        status.failure = why
        script.frames = []  // the rest of the script is skipped; verification and cleanup follow
        count(metrics.failed)
        advance(now: now, planned: now, &ctx)
    }

    /// After verification: every conversation a device of this call still has alive is ended by it (steps named
    /// `cleanup`, failures tolerated), then the call completes. Normal flows leave nothing alive.
    mutating func cleanUp(now: UInt64, _ ctx: inout FlowContext) {
        var steps: [FlowStep] = []
        // Sorted once, not once per role.
        let named = known.conversations.sorted(by: { $0.key < $1.key })
        for role in flow.roles {
            guard let d = roles[role] else { continue }
            for (name, uuid) in named {
                guard let c = ctx.devices[d].manager.conversations[uuid], c.state != .left, c.state != .leaving
                else { continue }
                steps.append(FlowStep(name: "cleanup", role: role,
                                      kind: .end(conversation: name, reason: status.missed ? "unanswered" : "failed")))
            }
        }
        guard !steps.isEmpty else { return finishElsewhere(now: now, ctx.devices) }
        status.cleaningUp = true
        script.frames = [StepFrame(steps: steps, index: 0, remaining: 1)]
        advance(now: now, planned: now, &ctx)
    }

    /// At the end of a flow, the target's view of every conversation is compared with each member device's.
    /// Pushes may still be on their way, so a disagreement is checked again after `settleNanos`, and longer while
    /// the device is behind the server's version (`lastVerifyAttemptWhenBehind`); only a difference that persists
    /// counts as `views.mismatched`.
    mutating func verify(now: UInt64, attempt: Int, _ ctx: inout FlowContext) {
        // A call of one conversation (most) lists it without a set and a sort.
        let uuids = known.conversations.count == 1 ? Array(known.conversations.values)
            : Array(Set(known.conversations.values)).sorted()
        guard config.verifyViews, !uuids.isEmpty else { return cleanUp(now: now, &ctx) }
        waiting = .verification(outstanding: uuids.count, attempt: attempt, mismatched: false)
        emit(.fetchViews(uuids))
    }

    /// The target's view of `uuid` (nil when it could not be read) for the verification in progress.
    mutating func viewFetched(_ uuid: String, _ view: ConversationView?, now: UInt64,
                              _ ctx: inout FlowContext) -> [FlowEffect] {
        guard case .verification(let left, let attempt, var mismatched) = waiting else { return take() }
        if let view, attempt == 0 { finalPoll(view, &ctx) }
        if let view {
            // A user's other devices too (`users:`): their views must agree that another device holds the call.
            for local in allDevices() where ctx.devices[local].manager.conversations.index(forKey: uuid) != nil {
                let manager = ctx.devices[local].manager
                let problem = manager.disagreement(with: view)
                // Behind: the server changed the conversation after the last view this device saw, so a push
                // about it is still on its way (a busy machine delays them); wait for it longer, unless a fault
                // already lost that version on its way to this device (nothing else will bring it).
                let seen = manager.conversations[uuid]?.version ?? 0
                let lost = ctx.devices[local].lostVersions[uuid].map { $0 >= view.version } ?? false
                let behind = problem != nil && seen < view.version && !lost
                let last = attempt >= (behind ? FlowConfig.lastVerifyAttemptWhenBehind : FlowConfig.lastVerifyAttempt)
                if problem == nil || last {
                    var final = finalView(manager, uuid: uuid, server: view, acting: actingIDs(ctx.devices))
                    final.user = ctx.devices[local].identity.user
                    emit(.finalView(final))
                }
                guard let problem else { continue }
                if !last { mismatched = true }
                if last {
                    count(.viewsMismatched)
                    emit(.note("view mismatch in \(flow.name): \(manager.localDevice) on \(uuid): \(problem)",
                               limit: 20))
                }
            }
        } else {
            count(.viewsUnverifiable)
        }
        guard left <= 1 else {
            waiting = .verification(outstanding: left - 1, attempt: attempt, mismatched: mismatched)
            return take()
        }
        if mismatched {
            // Pushes may still be on their way: wait longer each time.
            emit(.arm(.verify(attempt: attempt + 1), at: now + FlowConfig.settleNanos << UInt64(attempt)))
        } else {
            countChecked(ctx.devices)
            cleanUp(now: now, &ctx)
        }
        return take()
    }

    /// The `final` history line for one device and conversation: written on the last verification attempt, or on
    /// the first when the views already agree (so each pair is written once).
    /// Each role's handle → the id of the device acting for it: a user with several devices (`users:`) shares one
    /// handle, and the device of the user that holds the call is the one acting for its role.
    private func actingIDs(_ devices: DeviceModel) -> [String: String] {
        guard !known.elsewhere.isEmpty else { return [:] }
        var ids: [String: String] = [:]
        for local in self.devices() { ids[devices[local].identity.handle.value] = devices[local].identity.id }
        return ids
    }

    private func finalView(_ manager: ConversationManager, uuid: String, server: ConversationView,
                           acting: [String: String]) -> FinalView {
        let c = manager.conversations[uuid]
        let state: String
        switch c?.state ?? .left {
        case .idle: state = "ringing"
        case .joining, .joined: state = "joined"
        case .paused: state = "held"
        case .leaving, .left: state = "left"
        }
        func ids(_ handles: [Handle]?) -> [String] {
            (handles ?? []).map { acting[$0.value] ?? DeviceIdentity.id(forHandleValue: $0.value) }
        }
        return FinalView(device: manager.localDevice, conversation: uuid, server: server, state: state,
                         members: ids(c?.members), activeMembers: ids(c?.activeRemoteMembers))
    }

    private mutating func countChecked(_ devices: DeviceModel) {
        let views = self.devices().reduce(0) { sum, local in
            sum + Set(known.conversations.values).filter {
                devices[local].manager.conversations.index(forKey: $0) != nil
            }.count
        }
        count(.viewsChecked, by: Int64(views))
    }

    /// The call is over: its outcome is counted and the worker frees its devices.
    mutating func complete(now: UInt64) {
        judgeUnanswered()
        count(status.missed ? .callsMissed : (status.failed ? .callsFailed : .callsCompleted))
        count(status.missed ? metrics.missed : (status.failed ? metrics.failedCalls : metrics.completed))
        if !status.failed {
            emit(.record(.callDuration, micros: Int64((now - startedNanos) / 1000)))
        }
        emit(.completed(outcome: status.missed ? "missed" : (status.failed ? "failed" : "completed")))
    }
}
