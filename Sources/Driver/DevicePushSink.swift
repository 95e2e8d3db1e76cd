import Faults
import Determinism
import Foundation
import Metrics
import PushModel
import Scenario
import TextEscaping

/// The push gateway's sink: finds the device from its token, applies what the push-path faults of the active
/// windows decided (`FaultSchedule.pushDecision`: error answers, drops, delays, duplicates, holds, GOAWAYs — each
/// drawn from the seed), and hands the push to the device's worker queue.
final class DevicePushSink: PushSink {
    let workers: [Worker]
    let settings: DriverSettings
    let schedule: FaultSchedule
    let loadClock: LoadClock
    let clock: Clock
    let faultLog: FaultLog
    /// Each device's call and push number in it, so a fault decision names one push of one planned call.
    let deviceCalls: DeviceCalls
    /// Reads a push's conversation, for a device running a waiting call (`DeviceCalls.nextPush`).
    let reader: ViewReader

    /// Whether any window browns the gateway out (the gateway asks on every request; most runs have none).
    let hasBrownout: Bool

    init(workers: [Worker], settings: DriverSettings, schedule: FaultSchedule, loadClock: LoadClock, clock: Clock,
         faultLog: FaultLog, deviceCalls: DeviceCalls) {
        self.hasBrownout = schedule.hasBrownout
        self.workers = workers
        self.settings = settings
        self.schedule = schedule
        self.loadClock = loadClock
        self.clock = clock
        self.faultLog = faultLog
        self.deviceCalls = deviceCalls
        reader = TargetAPI(settings.api, handles: settings.handles).reader
    }

    func accept(_ push: APNsPush) -> APNsRejection? { answer(push).rejection }

    /// The devices' push pattern: the gateway's JSON check scans with it and the workers read that scan.
    var payloadPattern: JSONPattern? { reader.pushes }

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
        guard let (answer, note) = schedule.brownout(at: sinceLoad, device: index, flow: flow) else { return nil }
        faultLog.add(.init(sinceLoadNanos: sinceLoad, window: note.window, kind: note.kind, device: index,
                           seq: (slot?.pushes ?? 0) + 1, call: slot?.call ?? -1, role: slot?.role ?? -1))
        let worker = workers[w]
        worker.loop.execute { worker.books.count(.fault(note.kind), at: now) }
        switch answer {
        case .refuse: return .refuse
        case .stall(let nanos): return .stall(forNanos: nanos)
        }
    }

    func answer(_ push: APNsPush) -> PushSinkAnswer {
        guard let index = DeviceIdentity.index(ofToken: push.token, seed: settings.seed, deviceCount: settings.devices),
              let (w, local) = settings.owner(ofDevice: index) else {
            return PushSinkAnswer(rejection: APNsRejection(.badDeviceToken,
                                                           detail: "no simulated device of this shard has this token"))
        }
        let worker = workers[w]
        var decision = PushDecision()
        let start = loadClock.start.load(ordering: .relaxed)
        let now = clock.nowNanos()
        // Pushes belong to the window their call was planned in, and every draw is keyed by (window, call, role,
        // push number in the call): the same seed hits the same pushes of the same calls, run after run.
        if !schedule.isEmpty, start > 0, now > start,
           let slot = deviceCalls.nextPush(index, conversation: { reader.push(push)?.uuid }) {
            let subject = FaultSchedule.subject(call: slot.call, role: slot.role)
            let flow = settings.flows[slot.flow].name
            decision = schedule.pushDecision(device: index, subject: subject, seq: slot.pushes,
                                             plannedSinceLoad: slot.plannedSinceLoad, flow: flow)
            let type = push.pushType.rawValue
            for note in decision.notes {
                faultLog.add(.init(sinceLoadNanos: now - start, window: note.window, kind: note.kind, device: index,
                                   seq: slot.pushes, call: slot.call, role: slot.role))
                worker.loop.execute {
                    worker.books.count(.fault(note.kind), at: now)
                    worker.books.count(.fault(note.kind, pushType: type), at: now)
                    worker.books.tracer?.fault(call: slot.call, kind: note.kind, window: note.window, now: now)
                }
            }
        }
        switch decision.fate {
        case .reject(let status):
            return PushSinkAnswer(rejection: Self.rejection(status), goAway: decision.goAway)
        case .drop:
            // APNs accepted it; it never reaches the phone (dropped, or the phone is offline).
            worker.post { worker.intake.acceptedButDropped(push, local: local) }
            return PushSinkAnswer(rejection: nil, goAway: decision.goAway)
        case .deliver:
            let (wait, count, held) = (decision.delayNanos, decision.copies, decision.holdNanos)
            worker.post { worker.intake.accepted(push, local: local, delay: wait, copies: count, hold: held) }
            return PushSinkAnswer(rejection: nil, goAway: decision.goAway)
        }
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
