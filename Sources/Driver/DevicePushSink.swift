import Determinism
import Foundation
import PushModel
import Scenario

/// The push gateway's sink: finds the device from its token, applies the push-path faults of the active windows
/// (error answers, drops, delays, duplicates — each decided from the seed), and hands the push to the device's
/// worker queue.
final class DevicePushSink: PushSink {
    let workers: [Worker]
    let settings: DriverSettings
    let schedule: FaultSchedule
    let loadClock: LoadClock
    let clock: Clock
    let faultLog: FaultLog
    /// Each device's call and push number in it, so a fault decision names one push of one planned call.
    let deviceCalls: DeviceCalls

    /// Whether any window browns the gateway out (the gateway asks on every request; most runs have none).
    let hasBrownout: Bool

    init(workers: [Worker], settings: DriverSettings, schedule: FaultSchedule, loadClock: LoadClock, clock: Clock,
         faultLog: FaultLog, deviceCalls: DeviceCalls) {
        self.hasBrownout = schedule.windows.contains { $0.push?.brownout != nil }
        self.workers = workers
        self.settings = settings
        self.schedule = schedule
        self.loadClock = loadClock
        self.clock = clock
        self.faultLog = faultLog
        self.deviceCalls = deviceCalls
    }

    func accept(_ push: APNsPush) -> APNsRejection? { answer(push).rejection }

    /// A brown-out window is open now (by the clock, not by planned call: the gateway itself is down) and covers
    /// the token's device and its call's flow: refuse the push at once, or stall it until the window ends.
    func gatewayFault(token: Substring) -> GatewayFault? {
        guard hasBrownout else { return nil }
        let start = loadClock.start.load(ordering: .relaxed)
        let now = clock.nowNanos()
        guard start > 0, now > start,
              let index = DeviceIdentity.index(ofToken: String(token), seed: settings.seed,
                                               deviceCount: settings.devices),
              let (w, _) = settings.owner(ofDevice: index) else { return nil }
        let sinceLoad = now - start
        let slot = deviceCalls.current(index)
        let flow = slot.map { settings.flows[$0.flow].name }
        for (_, window) in schedule.active(at: sinceLoad, device: index) {
            guard let mode = window.push?.brownout else { continue }
            if !window.flows.isEmpty, !(flow.map { window.flows.contains($0) } ?? false) { continue }
            let kind = mode == .refuse ? "push.brownout_refused" : "push.brownout_stalled"
            faultLog.add(.init(sinceLoadNanos: sinceLoad, window: window.name, kind: kind, device: index,
                               seq: (slot?.pushes ?? 0) + 1, call: slot?.call ?? -1, role: slot?.role ?? -1))
            let worker = workers[w]
            worker.queue.async { worker.recorder.count("faults.\(kind)", atNanos: now) }
            return mode == .refuse ? .refuse : .stall(forNanos: window.endNanos - sinceLoad)
        }
        return nil
    }

    func answer(_ push: APNsPush) -> PushSinkAnswer {
        guard let index = DeviceIdentity.index(ofToken: push.token, seed: settings.seed, deviceCount: settings.devices),
              let (w, local) = settings.owner(ofDevice: index) else {
            return PushSinkAnswer(rejection: APNsRejection(.badDeviceToken,
                                                           detail: "no simulated device of this shard has this token"))
        }
        let worker = workers[w]
        var delay: UInt64 = 0
        var copies = 1
        var hold: UInt64 = 0
        var goAway = false
        let start = loadClock.start.load(ordering: .relaxed)
        let now = clock.nowNanos()
        // Pushes belong to the window their call was planned in, and every draw is keyed by (window, call, role,
        // push number in the call): the same seed hits the same pushes of the same calls, run after run.
        if !schedule.isEmpty, start > 0, now > start, let slot = deviceCalls.nextPush(index) {
            let sinceLoad = now - start
            let subject = FaultSchedule.subject(call: slot.call, role: slot.role)
            let seq = slot.pushes
            let flow = settings.flows[slot.flow].name
            for (i, w) in schedule.active(forCallPlannedAt: slot.plannedSinceLoad, device: index, flow: flow) {
                let strength = w.intensity(at: slot.plannedSinceLoad)
                func note(_ kind: String) {
                    faultLog.add(.init(sinceLoadNanos: sinceLoad, window: w.name, kind: kind, device: index,
                                       seq: seq, call: slot.call, role: slot.role))
                    let type = push.pushType.rawValue
                    worker.queue.async {
                        worker.recorder.count("faults.\(kind)", atNanos: now)
                        worker.recorder.count("faults.\(kind).\(type)", atNanos: now)
                    }
                }
                if let p = w.push, p.goaway > 0, !goAway, schedule.draw(i, subject, seq, 7) < p.goaway * strength {
                    // Decided first: the connection goes away after this push's answer, whatever it is.
                    goAway = true
                    note("push.goaway")
                }
                if let d = w.device, d.offline > 0, schedule.draw(i, index, 0, 0x0FF) < d.offline * strength {
                    note("device.offline_push_lost")
                    worker.queue.async { worker.acceptedButDropped() }
                    // APNs accepted it; an offline phone never sees it
                    return PushSinkAnswer(rejection: nil, goAway: goAway)
                }
                guard let p = w.push else { continue }
                if p.errorRate > 0, schedule.draw(i, subject, seq, 1) < p.errorRate * strength {
                    note("push.error_\(p.errorStatus)")
                    return PushSinkAnswer(rejection: Self.rejection(p.errorStatus), goAway: goAway)
                }
                if p.drop > 0, schedule.draw(i, subject, seq, 2) < p.drop * strength {
                    note("push.dropped")
                    worker.queue.async { worker.acceptedButDropped() }
                    return PushSinkAnswer(rejection: nil, goAway: goAway)
                }
                if let distribution = p.delay {
                    var rng = schedule.rng(i, subject, seq, 3)
                    delay += UInt64(Double(distribution.sample(using: &rng)) * strength)
                    note("push.delayed")
                }
                if p.duplicate > 0, schedule.draw(i, subject, seq, 4) < p.duplicate * strength {
                    copies = 2
                    note("push.duplicated")
                }
                if p.reorder > 0, schedule.draw(i, subject, seq, 6) < p.reorder * strength {
                    hold = max(hold, p.reorderHoldNanos)
                    note("push.reordered")
                }
            }
        }
        let (wait, count, held) = (delay, copies, hold)
        worker.queue.async { worker.accepted(push, local: local, delay: wait, copies: count, hold: held) }
        return PushSinkAnswer(rejection: nil, goAway: goAway)
    }

    static func rejection(_ status: Int) -> APNsRejection {
        switch status {
        case 410: return APNsRejection(.unregistered, detail: "injected fault",
                                       timestampMillis: Int64(Date().timeIntervalSince1970 * 1000))
        case 429: return APNsRejection(.tooManyRequests, detail: "injected fault")
        case 500: return APNsRejection(.internalServerError, detail: "injected fault")
        default: return APNsRejection(.serviceUnavailable, detail: "injected fault")
        }
    }
}
