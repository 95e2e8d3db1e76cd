import Foundation
import Metrics
import Scenario

/// The arrivals of the plan this worker owns, one at a time (open model: a call starts at its planned time
/// whatever earlier calls are doing).
struct ArrivalFeed {
    let worker: Int
    private var iterator: ArrivalPlan.Iterator
    private(set) var done = false
    /// An arrival sits in the wheel waiting for its planned time.
    var pending = false
    /// The plan's zero (monotonic ns); 0 until the load starts.
    var loadStart: UInt64 = 0
    /// Runs once arrivals are over and no call is left.
    var onDrained: (@Sendable () -> Void)?

    init(worker: Int, plan: ArrivalPlan) {
        self.worker = worker
        self.iterator = plan.makeIterator()
    }

    /// The next arrival this worker owns; nil (and `done`) when the plan has no more.
    mutating func next(_ settings: DriverSettings) -> Arrival? {
        guard !done else { return nil }
        while let arrival = iterator.next() {
            guard settings.owns(arrival: arrival.index, worker: worker) else { continue }
            pending = true
            return arrival
        }
        done = true
        return nil
    }

    /// Ends the feed; returns how many arrivals it still had (the one waiting in the wheel included).
    mutating func abandon(_ settings: DriverSettings) -> Int64 {
        guard !done else { return 0 }
        var abandoned: Int64 = pending ? 1 : 0
        while let arrival = iterator.next() {
            if settings.owns(arrival: arrival.index, worker: worker) { abandoned += 1 }
        }
        pending = false
        done = true
        return abandoned
    }
}

extension Worker {
    func scheduleNextArrival() {
        guard !arrivals.done else { return }
        if let arrival = arrivals.next(settings) {
            schedule(.arrival(arrival), at: loadStart + arrival.plannedNanos)
            return
        }
        checkDrained()
    }

    /// Counts the arrivals this worker's plan still had (the one waiting in the wheel included) as not started,
    /// so planned vs delivered stays honest after a stop.
    func abandonArrivals(now: UInt64) {
        let abandoned = arrivals.abandon(settings)
        if abandoned > 0 { recorder.count(.callsNotStartedAtStop, by: abandoned, atNanos: now) }
    }

    func arrive(_ arrival: Arrival, now: UInt64) {
        guard arrivals.pending else { return }  // abandoned by a stop
        arrivals.pending = false
        let planned = loadStart + arrival.plannedNanos
        recorder.record(.schedulerLag, micros: Int64((now &- planned) / 1000), atNanos: now)
        recorder.count(.callsPlanned, atNanos: planned)
        // Only after this call is in `calls`: finding the plan exhausted checks whether the worker drained.
        defer { scheduleNextArrival() }
        let flow = settings.flows[arrival.flow]
        guard devices.idleCount >= flow.roles.count else {
            // Not enough free devices: the plan asked for more concurrent calls than the scenario has devices.
            recorder.count(.callsDroppedNoIdleDevice, atNanos: now)
            return
        }
        var roles: [String: Int] = [:]
        for (r, role) in flow.roles.enumerated() {
            let local = devices.takeIdle()
            roles[role] = local
            devices[local].callID = arrival.index
            faultState.deviceCalls.assign(devices[local].identity.index, call: arrival.index, role: r,
                                          flow: arrival.flow, plannedSinceLoad: arrival.plannedNanos)
        }
        calls[arrival.index] = FlowInterpreter(arrival: arrival, flow: flow, roles: roles, seed: settings.seed,
                                               config: config, now: now)
        live.started.add(1, ordering: .relaxed)
        live.active.add(1, ordering: .relaxed)
        recorder.count(.callsStarted, atNanos: now)
        recorder.count(.flow(flow.name, "started"), atNanos: now)
        apply(calls[arrival.index]!.begin(now: now, planned: planned, &context), call: arrival.index, now: now)
        if settings.stallPerCallNanos > 0 { usleep(UInt32(min(settings.stallPerCallNanos / 1_000, 1_000_000))) }
    }

    /// The call's interpreter said it is over: its devices go back to idle.
    func complete(_ id: Int) {
        guard let run = calls.removeValue(forKey: id) else { return }
        for local in run.devices() {
            devices.release(local)
            socketIdle(local)
        }
        live.active.subtract(1, ordering: .relaxed)
        live.completed.add(1, ordering: .relaxed)
        checkDrained()
    }

    func checkDrained() {
        if arrivals.done, calls.isEmpty, let done = arrivals.onDrained {
            arrivals.onDrained = nil
            done()
        }
    }
}
