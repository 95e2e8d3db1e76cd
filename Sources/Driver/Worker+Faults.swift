import Chaos
import Foundation
import Metrics
import PushModel
import Scenario

/// A worker's part of the fault windows: the schedule every decision is drawn from, the log of injected faults,
/// which call each device is in (shared with the push sink), and the clock skews already logged.
struct DeviceFaultState {
    let schedule: FaultSchedule
    let log: FaultLog
    /// Shared with the push sink: which call each device is in (set here, read there).
    let deviceCalls: DeviceCalls
    /// Whether any window skews device clocks (checked on every request).
    let hasClockSkew: Bool
    /// (window << 32 | device) of the clock skews already in the fault log.
    var skewsLogged: Set<Int> = []
    /// The socket faults of the worker's devices (`Worker+SocketFaults`).
    var socketPlan = SocketFaultPlan()

    init(schedule: FaultSchedule, log: FaultLog, deviceCalls: DeviceCalls) {
        self.schedule = schedule
        self.log = log
        self.deviceCalls = deviceCalls
        self.hasClockSkew = schedule.windows.contains { ($0.device?.clockSkewNanos ?? 0) > 0 }
    }
}

/// Device faults decided on the worker (media setup, report delay, offline requests, network routes); the
/// push-path faults are the push sink's (`DevicePushSink`). The decisions are moved here unchanged from the
/// worker's flow and push code.
extension Worker {
    var faults: FaultSchedule { faultState.schedule }
    var faultLog: FaultLog { faultState.log }
    var hasClockSkew: Bool { faultState.hasClockSkew }
    var skewsLogged: Set<Int> {
        get { faultState.skewsLogged }
        _modify { yield &faultState.skewsLogged }
    }

    enum MediaFault {
        case failure
        case delay(UInt64)
    }

    /// A device fault of the active windows on media setup for this join, decided from the seed.
    func mediaFault(_ local: Int, now: UInt64) -> MediaFault? {
        guard !faults.isEmpty, let since = sinceLoad(), let planned = faultTime(local),
              let key = faultSubject(local) else { return nil }
        let device = devices[local].identity.index
        // The number of this action in its call: the same join of the same call draws the same, every run.
        let seq = UInt64(calls[key.call]?.log.count ?? 0)
        let flow = calls[key.call]?.flow.name ?? ""
        guard let (decision, note) = faults.joinDecision(device: device, subject: key.subject, seq: seq,
                                                         plannedSinceLoad: planned, flow: flow) else { return nil }
        recorder.count(.fault(note.kind), atNanos: now)
        faultLog.add(.init(sinceLoadNanos: since, window: note.window, kind: note.kind, device: device, seq: seq,
                           call: key.call, role: key.role))
        switch decision {
        case .fail: return .failure
        case .delay(let nanos): return .delay(nanos)
        }
    }

    /// A slow app (a device fault): the VoIP push is reported after a delay drawn from the seed. True when the
    /// report was put off (the wheel hands the push to `process` later). The block of `Worker.receive`, unchanged.
    func delaysReport(_ push: APNsPush, local: Int, now: UInt64) -> Bool {
        if push.pushType == .voip, !faults.isEmpty, let since = sinceLoad(), let planned = faultTime(local),
           let key = faultSubject(local) {
            let device = devices[local].identity.index
            let flow = calls[key.call]?.flow.name ?? ""
            if let (delay, note) = faults.reportDelay(device: device, subject: key.subject, plannedSinceLoad: planned,
                                                      flow: flow) {
                recorder.count(.fault(note.kind), atNanos: now)
                faultLog.add(.init(sinceLoadNanos: since, window: note.window, kind: note.kind,
                                   device: device, seq: 0, call: key.call, role: key.role))
                schedule(.report(push: push, local: local), at: now + delay)
                rearm()
                return true
            }
        }
        return false
    }

    /// An offline phone reaches nobody (a device fault): its requests fail like a dead network.
    func isOffline(_ local: Int) -> Bool {
        guard !faults.isEmpty, loadStart > 0, let since = faultTime(local) ?? sinceLoad() else { return false }
        return faults.offline(at: since, device: devices[local].identity.index)
    }

    /// Inside a network window each request has a connection of its own, so the proxy's per-connection draw is
    /// made for every request (see NetworkFaults.freshConnections).
    func needsFreshConnection() -> Bool {
        guard !faults.isEmpty, let since = sinceLoad() else { return false }
        return faults.windows.contains { $0.network?.freshConnections == true && $0.contains(since) }
    }

    /// The proxy of an open network window that hits only some devices, when it hits this one (its share of
    /// devices, drawn from the seed; its flows, by the device's current call); nil sends to the target as usual.
    func networkRoute(_ local: Int) -> String? {
        guard !settings.networkRoutes.isEmpty, let since = sinceLoad() else { return nil }
        let flow = devices[local].callID.flatMap { calls[$0]?.flow.name }
        for (i, w) in faults.active(at: since, device: devices[local].identity.index) {
            guard let url = settings.networkRoutes[i] else { continue }
            if w.flows.isEmpty || flow.map({ w.flows.contains($0) }) == true { return url }
        }
        return nil
    }

    /// The instant fault windows are matched against for `local`'s actions and pushes: its call's planned time
    /// (so the same calls fall in a window every run); nil when the device is in no call.
    func faultTime(_ local: Int) -> UInt64? {
        guard let id = devices[local].callID, let run = calls[id] else { return nil }
        return run.arrival.plannedNanos
    }

    /// The draw key of `local`'s part in its call (see `FaultSchedule.subject`).
    func faultSubject(_ local: Int) -> (call: Int, role: Int, subject: Int)? {
        guard let id = devices[local].callID, let run = calls[id],
              let role = run.flow.roles.firstIndex(where: { run.roles[$0] == local }) else { return nil }
        return (id, role, FaultSchedule.subject(call: id, role: role))
    }

    /// Nanoseconds since the load started, once it has.
    func sinceLoad() -> UInt64? {
        let now = clock.nowNanos()
        return loadStart > 0 && now > loadStart ? now - loadStart : nil
    }
}
