import Determinism
import Metrics
import Scenario

/// Redial storms: when a call drops (it failed once its conversation existed: the target killed mid-call, a
/// conversation ended as failed), a seeded `share` of callers redial the callee from Recents after a seeded
/// `delay`, as a new call of the same two devices running the built-in `redial-from-recents` flow. A redial
/// that drops again is not redialled (one redial per dropped call, so a storm ends).
extension CallLauncher {
    /// Call ids of redials sit above every planned arrival's index: bit 40, then the worker, then a counter.
    static func redialID(worker: Int, serial: Int) -> Int { 1 << 40 | worker << 24 | serial }

    /// Called once the dropped call's devices went back to idle (so the dropped conversation is in Recents); a
    /// device still in another call is not redialled from (counted skipped, as a redial the share left out).
    func planRedial(after run: FlowInterpreter, now: UInt64) {
        guard let plan = settings.behavior.redialAfterDrop, run.dropped, run.arrival.index < 1 << 40,
              let caller = run.roles[run.flow.roles[0]], run.flow.roles.count > 1,
              let callee = run.roles[run.flow.roles[1]] else { return }
        var rng = SeededRandom(seed: settings.seed, stream: UInt64(run.arrival.index) | 1 << 41)
        // A device the dropped call handed over to its other call (call waiting) is busy: no redial on it, as
        // `reserve` takes only idle devices and `launch` would overwrite the call it is in.
        // With users (`users:`) every device of both users must be free, and each user is held by its first device.
        let callerUser = table.devices.devicesOfUser(caller)
        let calleeUser = table.devices.devicesOfUser(callee)
        guard rng.nextUnit() < plan.share, (callerUser + calleeUser).allSatisfy(table.devices.isFree) else {
            books.count(.redialsAfterDropSkipped, at: now)
            return
        }
        let delay = plan.delay.sample(using: &rng)
        table.devices.reserve(callerUser[0])
        table.devices.reserve(calleeUser[0])
        arrivals.redialsPending += 1
        let serial = arrivals.redialsPlanned
        arrivals.redialsPlanned += 1
        let behavior = settings.behavior
        let arrival = Arrival(
            index: Self.redialID(worker: arrivals.worker, serial: serial),
            plannedNanos: (now + delay) &- arrivals.loadStart, flow: run.arrival.flow,
            answerAfterNanos: behavior.answerAfter.sample(using: &rng), talkNanos: behavior.talk.sample(using: &rng),
            callerHangsUp: behavior.hangup == .random ? rng.nextUnit() < 0.5 : behavior.hangup == .caller)
        books.count(.redialsAfterDropPlanned, at: now)
        host.schedule(.redial(RedialDue(arrival: arrival, caller: caller, callee: callee)), at: now + delay)
    }

    /// The redial is due: the caller redials, as a new call counted as planned and started.
    func startRedial(_ due: RedialDue, now: UInt64) {
        arrivals.redialsPending -= 1
        let arrival = due.arrival
        let flow = BuiltinFlows.redialFromRecents
        let roles = ["caller": due.caller, "callee": due.callee]
        books.count(.callsPlanned, at: now)
        books.count(.redialsAfterDrop, at: now)
        launch(arrival, flow: flow, roles: roles, planned: arrivals.loadStart + arrival.plannedNanos, now: now,
               others: otherDevices(of: [due.caller, due.callee]))
    }
}
