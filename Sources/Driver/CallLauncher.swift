import Determinism
import Foundation
import Metrics
import Scenario

/// Where a worker's calls begin and end: planned arrivals at their planned time on idle devices (open model),
/// redials after drops (`CallLauncher+Redials`) and calls outside parties place (`CallLauncher+Outside`) all start
/// through `launch`, and `complete` hands a finished call's devices back to the idle pool. It also knows when the
/// worker is drained (arrivals over, no redial due, no call left, the outside window closed): that needs every kind
/// of start in view, which is why they share one owner instead of three slots on the worker.
///
/// Ownership rule: touched only on the worker's loop. It puts its timers on the wheel through the worker
/// (`EffectHost`); the worker hands it the arrivals, redials and window closing the wheel fires, and the calls
/// its devices' signaling asks it to take (`WorkerEffect.takeOutside`, `.takeWaiting`).
final class CallLauncher {
    let settings: DriverSettings
    let table: CallTable
    let books: RunBooks
    let faults: DeviceFaults
    let clock: Clock
    /// Each device's signaling: a device back to idle lingers or closes its socket, or goes back to sleep.
    let signaling: DeviceSignalings
    unowned let host: EffectHost
    /// The planned arrivals this worker owns, and the redials it has due.
    var arrivals: ArrivalFeed
    /// Calls outside parties place on this worker's devices, and the window in which they are taken.
    var outside: OutsideCalls
    /// Each flow's counters, made at the flow's first call on this worker.
    private var flowMetrics: [String: FlowMetrics] = [:]

    init(worker: Int, settings: DriverSettings, table: CallTable, books: RunBooks, faults: DeviceFaults,
         clock: Clock, signaling: DeviceSignalings, host: EffectHost) {
        (self.settings, self.table, self.books, self.faults) = (settings, table, books, faults)
        (self.clock, self.signaling, self.host) = (clock, signaling, host)
        arrivals = ArrivalFeed(worker: worker, plan: settings.plan, config: FlowConfig(settings))
        outside = OutsideCalls(worker: worker, settings: settings)
    }

    private var live: LiveStats { books.live }

    private func metrics(of flow: String) -> FlowMetrics {
        if let metrics = flowMetrics[flow] { return metrics }
        let metrics = FlowMetrics(flow: flow)
        flowMetrics[flow] = metrics
        return metrics
    }

    /// The load starts at `loadStart` (the plan's zero): the first arrival goes on the wheel, and the window for
    /// outside calls opens. `drained` runs once arrivals are over and no call is left.
    func start(loadStart: UInt64, drained: @escaping @Sendable () -> Void) {
        arrivals.loadStart = loadStart
        arrivals.onDrained = drained
        if outside.expected {
            outside.open(loadStart: loadStart, lengthNanos: settings.plan.totalNanos)
            host.schedule(.outsideWindowClosed, at: outside.closesAt)
        }
        scheduleNextArrival()
    }

    /// Stops planning new calls (`abandon`), and reports the worker drained if no call is left.
    func stopArrivals(now: UInt64) {
        abandon(now: now)
        checkDrained()
    }

    /// Counts the arrivals this worker's plan still had (the one waiting in the wheel included) as not started,
    /// so planned vs delivered stays honest after a stop.
    func abandon(now: UInt64) {
        let abandoned = arrivals.abandon(settings)
        if abandoned > 0 { books.count(.callsNotStartedAtStop, by: abandoned, at: now) }
    }

    private func scheduleNextArrival() {
        guard !arrivals.done else { return }
        if let arrival = arrivals.next(settings) {
            host.schedule(.arrival(arrival), at: arrivals.loadStart + arrival.plannedNanos)
            return
        }
        checkDrained()
    }

    /// A planned arrival is due: its call starts on idle devices, or is counted as dropped when there are too few.
    func arrive(_ arrival: Arrival, now: UInt64) {
        guard arrivals.pending else { return }  // abandoned by a stop
        arrivals.pending = false
        let planned = arrivals.loadStart + arrival.plannedNanos
        books.record(.schedulerLag, micros: Int64((now &- planned) / 1000), at: now)
        books.count(.callsPlanned, at: planned)
        // Only after this call is in `calls`: finding the plan exhausted checks whether the worker drained.
        defer { scheduleNextArrival() }
        let flow = settings.flows[arrival.flow]
        // Listed once (`deviceRoles` filters the roles anew at each read), and the map made at its size: grown
        // from empty it was rehashed at its second role.
        let deviceRoles = flow.deviceRoles
        guard table.devices.idleCount >= deviceRoles.count else {
            // Not enough free devices: the plan asked for more concurrent calls than the scenario has devices.
            books.count(.callsDroppedNoIdleDevice, at: now)
            return
        }
        var roles = [String: Int](minimumCapacity: deviceRoles.count)
        var others: [Int: Int] = [:]
        for (r, role) in deviceRoles.enumerated() {
            roles[role] = takeIdleUser(call: arrival.index, role: r, others: &others)
        }
        launch(arrival, flow: flow, roles: roles, planned: planned, now: now, others: others)
        if settings.stallPerCallNanos > 0 { usleep(UInt32(min(settings.stallPerCallNanos / 1_000, 1_000_000))) }
    }

    /// A role takes a whole idle user (`users:`; each device its own user without): one of its devices, a seeded
    /// choice, acts for the role, and the others (into `others`, keyed to the acting one) ring or stay quiet.
    func takeIdleUser(call: Int, role: Int, others: inout [Int: Int]) -> Int {
        let mine = table.devices.devicesOfUser(table.devices.takeIdle())
        let acting = mine[UserBook.actingDevice(of: mine.count, call: call, role: role, seed: settings.seed)]
        for other in mine where other != acting { others[other] = acting }
        return acting
    }

    /// The other devices of the users of `acting` devices, keyed to the acting one (a call that did not take its
    /// users from the idle pool: a redial, an outside call on the device it rang).
    func otherDevices(of acting: [Int]) -> [Int: Int] {
        var others: [Int: Int] = [:]
        for local in acting {
            for other in table.devices.devicesOfUser(local) where other != local { others[other] = local }
        }
        return others
    }

    /// Puts a call on the devices its roles name and begins it: planned arrivals, redials and outside calls alike
    /// (`outsideConversation`: the id of the outside party's call, bound to the flow's `main`; `waitingOn`: a device
    /// already in a call that takes this one, the outside party's, beside it, `Device.waitingCall`).
    func launch(_ arrival: Arrival, flow: Flow, roles: [String: Int], planned: UInt64, now: UInt64,
                outsideConversation: String? = nil, waitingOn: Int? = nil, others: [Int: Int] = [:]) {
        for (r, role) in flow.roles.enumerated() {
            guard let local = roles[role] else { continue }
            let device = table.devices[local].identity.index
            if local == waitingOn {
                table.devices[local].waitingCall = arrival.index
                // Its pushes about this call's conversation are this call's, not its own call's (`DeviceCalls`).
                if let outsideConversation {
                    faults.deviceCalls.assignWaiting(device, conversation: outsideConversation, call: arrival.index,
                                                     role: r, flow: arrival.flow,
                                                     plannedSinceLoad: arrival.plannedNanos)
                }
                continue
            }
            table.devices[local].callID = arrival.index
            faults.deviceCalls.assign(device, call: arrival.index, role: r, flow: arrival.flow,
                                      plannedSinceLoad: arrival.plannedNanos)
        }
        for (other, acting) in others.sorted(by: { $0.key < $1.key }) {
            // The user's other devices belong to this call: their pushes and views are its to judge.
            table.devices[other].callID = arrival.index
            let r = flow.roles.firstIndex { roles[$0] == acting } ?? 0
            faults.deviceCalls.assign(table.devices[other].identity.index, call: arrival.index, role: r,
                                      flow: arrival.flow, plannedSinceLoad: arrival.plannedNanos)
        }
        let metrics = metrics(of: flow.name)
        // Made in the table and finished there: a local stored into it was copied (every table of it retained)
        // and then dropped (released again).
        table.calls[arrival.index] = FlowInterpreter(arrival: arrival, flow: flow, roles: roles, seed: settings.seed,
                                                     config: arrivals.config, now: now, metrics: metrics)
        table.withCall(arrival.index) { call in
            if let outsideConversation { call.known.conversations[Flow.outsideConversation] = outsideConversation }
            call.known.elsewhere.others = others
        }
        live.started.add(1, ordering: .relaxed)
        live.active.add(1, ordering: .relaxed)
        books.count(.callsStarted, at: now)
        books.count(metrics.started, at: now)
        host.tell(arrival.index, now: now) { $0.begin(now: now, planned: planned, &$1) }
    }

    /// The call's interpreter said it is over: its devices go back to idle.
    func complete(_ id: Int) {
        guard let run = table.calls.removeValue(forKey: id) else { return }
        // The roles' devices listed once, and the call's conversations only for a device that stays in another
        // call: `allDevices()` listed the roles again, and the conversations were copied out for every device.
        let devices = run.devices()
        faults.attribute(call: id, devices: devices, plannedSinceLoad: run.arrival.plannedNanos,
                         failed: run.status.failed, now: clock.nowNanos())
        var conversations: [String]?
        for local in devices { release(local, of: run, call: id, conversations: &conversations) }
        for local in run.elsewhereDevices { release(local, of: run, call: id, conversations: &conversations) }
        live.active.subtract(1, ordering: .relaxed)
        live.completed.add(1, ordering: .relaxed)
        planRedial(after: run, now: clock.nowNanos())
        checkDrained()
    }

    /// One device of a completed call: idle again, or handed over to its other call, which goes on.
    private func release(_ local: Int, of run: FlowInterpreter, call id: Int, conversations: inout [String]?) {
        let remote = run.callRemote(of: local, table.devices)
        if table.devices[local].waitingCall != nil {
            if conversations == nil { conversations = Array(run.known.conversations.values) }
            if table.devices.handOver(local, ending: id, conversations: conversations ?? [], remote: remote) {
                faults.deviceCalls.handOver(table.devices[local].identity.index, ending: id)
                return  // its other call goes on
            }
        }
        table.devices.release(local, remote: remote)
        signaling.moment(.idle, device: local)
    }

    /// Runs `onDrained` once arrivals are over, no redial is due, no call is left and no outside call may come.
    func checkDrained() {
        if arrivals.done, arrivals.redialsPending == 0, table.calls.isEmpty,
           !outside.isOpen(clock.nowNanos()), let done = arrivals.onDrained {
            arrivals.onDrained = nil
            done()
        }
    }
}
