import CallModel
import Determinism
import Foundation
import Metrics
import PushModel
import Results
import RunFormats
import Scenario

/// Pushes reaching a worker's devices, after the push sink's faults: VoIP pushes are reported at once (PushKit's
/// rule) and measured; background pushes, and the events a device's socket brings (`observe`), carry the server's
/// view of a conversation after someone else's action: the observation seam. Delayed, duplicated and held pushes
/// wait in the worker's wheel (`TimerEvent.deliver`, `.report`, `.releaseHeld`) and come back here.
///
/// Every device signaling kind feeds the same two doors: a call that rings (`WorkerEffect.ring`, into
/// `reportIncoming`) and a change in a conversation (`WorkerEffect.observe`, into `observe`); the worker applies
/// those effects here. A reported call is a moment of the device's signaling (`AppMoment.pushReported`: a socket
/// may open, a sleeping SIP device wakes), told through `DeviceSignalings`, so neither this type nor the worker
/// grows per kind.
///
/// Ownership rule: touched only on the worker's loop (the push sink hands pushes over with `DriverLoop.post`).
final class PushIntake {
    /// `pushes.received.<type>` per push type in `allCases` order, made once: counted at every delivered push.
    /// An array found by the case's place, not a dictionary: hashing the type cost ~340 instructions a push.
    static let received = types.map { Metric.pushesReceived($0.rawValue) }
    private static let types = APNsPush.PushType.allCases

    static func received(_ type: APNsPush.PushType) -> Metric {
        received[types.firstIndex(of: type)!]
    }

    private let settings: DriverSettings
    private let reader: ViewReader
    private let table: CallTable
    private let books: RunBooks
    private let faults: DeviceFaults
    private let clock: Clock
    /// Each device's signaling: told when a call is reported, asked whether the app is in the foreground.
    private let signaling: DeviceSignalings
    private unowned let host: EffectHost

    init(settings: DriverSettings, reader: ViewReader, table: CallTable, books: RunBooks, faults: DeviceFaults,
         clock: Clock, signaling: DeviceSignalings, host: EffectHost) {
        self.settings = settings
        self.reader = reader
        self.table = table
        self.books = books
        self.faults = faults
        self.clock = clock
        self.signaling = signaling
        self.host = host
    }

    /// A push the gateway accepted but a fault dropped before the device (offline phone, APNs drop). The server
    /// was told it was delivered, so it never sends that update again: the device notes it as lost, and the view
    /// check at the end of its call does not wait for it (`Device.lostVersions`).
    func acceptedButDropped(_ push: APNsPush, local: Int) {
        if books.sealed {
            books.countLate(.pushesAccepted)
            books.countLate(.pushesDroppedByFault)
            return
        }
        let now = clock.nowNanos()
        books.count(.pushesAccepted, at: now)
        books.count(.pushesDroppedByFault, at: now)
        if let payload = reader.push(push), let uuid = payload.uuid,
           let version = payload.view.map(\.version) ?? payload.version {
            table.devices.lost(uuid, version: version, on: local)
        }
    }

    /// A push the gateway accepted for a device of this worker, possibly delayed or duplicated by a fault, or
    /// held back by a reorder fault (`hold` > 0: delivered right after the device's next push, or `hold` after
    /// its delay when none comes).
    func accepted(_ push: APNsPush, local: Int, delay: UInt64, copies: Int, hold: UInt64 = 0) {
        if books.sealed {
            books.countLate(.pushesAccepted)
            if copies > 1 { books.countLate(.pushesDuplicated, by: Int64(copies - 1)) }
            books.countLate(.pushesUndeliveredAtStop, by: Int64(copies))
            return
        }
        let now = clock.nowNanos()
        books.count(.pushesAccepted, at: now)
        if copies > 1 { books.count(.pushesDuplicated, by: Int64(copies - 1), at: now) }
        if push.pushType == .voip, delay > 0 || copies > 1 || hold > 0 {
            table.devices.markFaulted(push.apnsID, copies: copies, on: local)
        }
        for _ in 0..<copies {
            if hold > 0 {
                books.pendingDeliveries += 1
                let serial = table.devices.hold(push, for: local)
                host.schedule(.releaseHeld(local: local, serial: serial), at: now + delay + hold)
            } else if delay > 0 {
                books.pendingDeliveries += 1
                host.schedule(.deliver(push: push, local: local), at: now + delay)
            } else {
                receive(push, local: local)
                releaseAllHeld(local)
            }
        }
    }

    /// A delayed push is due (`TimerEvent.deliver`).
    func deliver(_ push: APNsPush, local: Int) {
        books.pendingDeliveries -= 1
        receive(push, local: local)
        releaseAllHeld(local)
    }

    func receive(_ push: APNsPush, local: Int) {
        let now = clock.nowNanos()
        guard !books.sealed else {
            books.countLate(.pushesUndeliveredAtStop)
            return
        }
        if let expiration = push.expiration, expiration > 0, Int64(Date().timeIntervalSince1970) > expiration {
            // Delivered after its apns-expiration (a delay fault): APNs would have discarded it.
            books.count(.pushesExpired, at: now)
            return
        }
        if push.pushType == .voip, table.devices[local].deadlineMisses >= settings.voipBlockAfterMisses {
            // iOS stops launching an app for VoIP pushes after it repeatedly failed to report them.
            books.count(.pushesBlocked, at: now)
            return
        }
        books.count(.pushesDelivered, at: now)
        if !table.devices.delivered(acceptedNanos: push.acceptedNanos, to: local) {
            // Overtaken by a push the gateway accepted later (a reorder fault, or delays that differ).
            books.count(.pushesDeliveredOutOfOrder, at: now)
        }
        let micros = Int64((now &- push.acceptedNanos) / 1000)
        books.record(.pushDelivery, micros: micros, at: now)
        if let scope = faults.scope(local, acceptedNanos: push.acceptedNanos) {
            books.record(.scoped(scope, .pushDelivery), micros: micros, at: now)
        }
        books.count(Self.received(push.pushType), at: now)
        if let delay = faults.reportDelay(push, local: local, now: now) {
            // A slow app: the push is processed after the drawn delay.
            host.schedule(.report(push: push, local: local), at: now + delay)
            return
        }
        process(push, local: local, delivered: now)
    }

    /// Delivers the pushes a reorder fault held for `local` once a later push has been delivered: they arrive
    /// after it, in the order they were held.
    func releaseAllHeld(_ local: Int) {
        guard !books.sealed, !table.devices[local].held.isEmpty else { return }
        for push in table.devices.takeAllHeld(local) {
            books.pendingDeliveries -= 1
            receive(push, local: local)
        }
    }

    /// A held push whose bound ran out with no later push to overtake it.
    func releaseHeld(_ local: Int, serial: UInt64) {
        guard !books.sealed, let push = table.devices.takeHeld(local, serial: serial) else { return }
        books.pendingDeliveries -= 1
        receive(push, local: local)
    }

    /// The app handles a delivered push (at once, or after a slow-app fault's delay).
    func process(_ push: APNsPush, local: Int, delivered: UInt64) {
        let now = clock.nowNanos()
        guard !books.sealed else { return }
        let payload = reader.push(push)
        let device = table.devices[local].identity.id
        let user = table.devices[local].identity.user
        if let trace = settings.trace, let call = table.devices[local].callID, trace.traces(call) {
            trace.push(call: call, device: device, pushType: push.pushType.rawValue, payload: push.payload,
                       t: now &- books.runStart)
        }
        // In the history the push comes before anything the device does because of it.
        let runStart = books.runStart
        if let journal = books.journal, let uuid = payload?.uuid {
            let event = push.pushType == .voip ? "voip" : (payload?.event ?? "unknown")
            journal.history {
                HistoryText.push(t: now &- runStart, device: device, event: event, conversation: uuid,
                                 into: payload?.into, view: payload?.view, user: user,
                                 reason: push.pushType == .voip ? nil : payload?.reason, into: &$0)
            }
        }
        var reported: UInt64?
        if push.pushType == .voip {
            reported = clock.nowNanos()
            receiveVoIP(push, payload: payload, local: local, now: reported!)
        } else {
            observe(payload, local: local, now: now)
        }
        let missed = reported.map { $0 &- push.acceptedNanos > settings.deadlineNanos } ?? false
        if let tracer = books.tracer, push.pushType == .voip, let call = table.devices[local].callID {
            tracer.push(call: call, type: push.pushType.rawValue, device: device, accepted: push.acceptedNanos,
                        delivered: delivered, reported: reported, deadlineMissed: missed)
        }
        books.journal?.push(PushRow(
            apnsID: push.apnsID, device: device, pushType: push.pushType.rawValue,
            acceptedNanos: push.acceptedNanos &- runStart, deliveredNanos: delivered &- runStart,
            reportedNanos: reported.map { $0 &- runStart }, deadlineMissed: missed))
    }

    private func receiveVoIP(_ push: APNsPush, payload: PushPayload?, local: Int, now: UInt64) {
        let latency = now &- push.acceptedNanos
        let judged = table.devices.judgeVoIP(payload, apnsID: push.apnsID, on: local, ageNanos: latency,
                                             foreground: signaling[local].isForeground(local),
                                             judge: VoIPPushJudge(longDelayNanos: settings.deadlineNanos))
        guard case .newCall(let uuid) = judged else { return answerWithoutCall(judged, local: local, now: now) }
        books.record(.pushToReport, micros: Int64(latency / 1000), at: now)
        if let scope = faults.scope(local, acceptedNanos: push.acceptedNanos) {
            books.record(.scoped(scope, .pushToReport), micros: Int64(latency / 1000), at: now)
        }
        let missed = latency > settings.deadlineNanos
        if missed {
            // iOS terminates an app that did not report in time; after repeated misses it stops launching it
            // for VoIP pushes (`voipBlockAfterMisses`).
            books.count(.pushDeadlineMissed, at: now)
            if table.devices.missedDeadline(local, blockAfter: settings.voipBlockAfterMisses) {
                books.count(.devicesVoIPBlocked, at: now)
            }
        }
        guard let payload else { return }
        if missed, let id = table.devices[local].callID, table.calls[id]?.waitsForPush(uuid, on: local) == true {
            host.tell(id, now: now) { $0.terminateApp(local, now: now, &$1) }
            return
        }
        if missed { books.count(.devicesTerminatedForMissedDeadline, at: now) }
        reportIncoming(local, payload: payload, uuid: uuid, acceptedNanos: push.acceptedNanos, now: now)
    }

    /// A VoIP push without a new call: the app ignores it, reports and ends, or is terminated (`VoIPPushJudge`).
    private func answerWithoutCall(_ judged: VoIPPushJudge.Outcome, local: Int, now: UInt64) {
        let answer = table.devices.answerWithoutCall(judged, on: local, policy: settings.voipWithoutCall,
                                                     blockAfter: settings.voipBlockAfterMisses)
        for metric in answer.counters { books.count(metric, at: now) }
        guard answer.terminated, let id = table.devices[local].callID, table.has(id) else { return }
        host.tell(id, now: now) { $0.terminateApp(local, now: now, withoutCall: true, &$1) }
    }

    /// The device reports an incoming conversation to the system and its call hears of it.
    func reportIncoming(_ local: Int, payload: PushPayload, uuid: String, acceptedNanos: UInt64, now: UInt64) {
        let refusal = table.devices.reportIncoming(local, payload: payload, uuid: uuid, now: now)
        books.count(.conversationsReported, at: now)
        if refusal != nil { books.count(.conversationsRefusedOverLimit, at: now) }
        // An outside party's call becomes a call of ours before the device wakes for it, so the faults decided per
        // call (a late wake, a lost wake REGISTER) apply to it as to a planned one.
        if table.devices[local].callID == nil {
            host.apply(.takeOutside(device: local, conversation: uuid, now: now))
        }
        signaling[local].moment(.pushReported(conversation: uuid, acceptedNanos: acceptedNanos), device: local)
        guard let id = table.devices[local].callID, table.has(id) else {
            books.count(.pushesUnexpected, at: now)
            return
        }
        host.tell(id, now: now) { $0.pushReported(device: local, conversation: uuid, now: now, &$1) }
        if let (event, _) = faults.lifeAtRing(local, now: now) {
            host.schedule(.flow(call: id, .life(event, device: local)), at: now)
        }
    }

    /// A background push, or a message on the device's socket (`channel`: `socket.events`), folded into the
    /// device's view: the observation seam. `call`: the call it is about when the channel knows (a SIP leg's: the
    /// device may run a waiting call beside its own), else the device's call.
    func observe(_ payload: PushPayload?, local: Int, now: UInt64, channel: Metric.ObservationChannel = .pushes,
                 call: Int? = nil) {
        let id = call ?? table.devices[local].callID
        switch table.devices.observeBackground(payload, on: local, inCall: id.map { table.has($0) } ?? false) {
        case .badPayload: books.count(.observed(channel, "bad_payload"), at: now)
        case .mergedBeforeKnown: books.count(.observed(channel, "merged_before_known"), at: now)
        case .stale: books.count(.observed(channel, "stale"), at: now)
        case .applied(let outOfOrder):
            if outOfOrder { books.count(.observed(channel, "out_of_order"), at: now) }
            guard let id else { return }
            host.tell(id, now: now) { $0.deviceChanged(local, now: now, &$1) }
        }
    }
}
