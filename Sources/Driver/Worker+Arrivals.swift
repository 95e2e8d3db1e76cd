import Foundation
import Metrics
import Scenario

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
                                               config: arrivals.config, now: now)
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
