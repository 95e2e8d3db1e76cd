import CallModel
import Foundation
import Metrics
import PushModel
import Results
import RunFormats
import Scenario

/// Pushes reaching a device: VoIP pushes are reported at once (PushKit's rule) and measured; background pushes
/// carry the server's view of a conversation after someone else's action.
extension Worker {
    /// A push the gateway accepted but a fault dropped before the device (offline phone, APNs drop).
    func acceptedButDropped() {
        if finished {
            books.countLate(.pushesAccepted)
            books.countLate(.pushesDroppedByFault)
            return
        }
        let now = clock.nowNanos()
        recorder.count(.pushesAccepted, atNanos: now)
        recorder.count(.pushesDroppedByFault, atNanos: now)
    }

    /// A push the gateway accepted for a device of this worker, possibly delayed or duplicated by a fault, or
    /// held back by a reorder fault (`hold` > 0: delivered right after the device's next push, or `hold` after
    /// its delay when none comes).
    func accepted(_ push: APNsPush, local: Int, delay: UInt64, copies: Int, hold: UInt64 = 0) {
        if finished {
            books.countLate(.pushesAccepted)
            if copies > 1 { books.countLate(.pushesDuplicated, by: Int64(copies - 1)) }
            books.countLate(.pushesUndeliveredAtStop, by: Int64(copies))
            return
        }
        let now = clock.nowNanos()
        recorder.count(.pushesAccepted, atNanos: now)
        if copies > 1 { recorder.count(.pushesDuplicated, by: Int64(copies - 1), atNanos: now) }
        if push.pushType == .voip, delay > 0 || copies > 1 || hold > 0 {
            devices.markFaulted(push.apnsID, copies: copies, on: local)
        }
        for _ in 0..<copies {
            if hold > 0 {
                books.pendingDeliveries += 1
                let serial = devices.hold(push, for: local)
                schedule(.releaseHeld(local: local, serial: serial), at: now + delay + hold)
                rearm()
            } else if delay > 0 {
                books.pendingDeliveries += 1
                schedule(.deliver(push: push, local: local), at: now + delay)
                rearm()
            } else {
                receive(push, local: local)
                releaseAllHeld(local)
            }
        }
    }

    /// Called on the queue by the push sink.
    func receive(_ push: APNsPush, local: Int) {
        let now = clock.nowNanos()
        guard !finished else {
            books.countLate(.pushesUndeliveredAtStop)
            return
        }
        if let expiration = push.expiration, expiration > 0, Int64(Date().timeIntervalSince1970) > expiration {
            // Delivered after its apns-expiration (a delay fault): APNs would have discarded it.
            recorder.count(.pushesExpired, atNanos: now)
            return
        }
        if push.pushType == .voip, devices[local].deadlineMisses >= settings.voipBlockAfterMisses {
            // iOS stops launching an app for VoIP pushes after it repeatedly failed to report them.
            recorder.count(.pushesBlocked, atNanos: now)
            return
        }
        recorder.count(.pushesDelivered, atNanos: now)
        if !devices.delivered(acceptedNanos: push.acceptedNanos, to: local) {
            // Overtaken by a push the gateway accepted later (a reorder fault, or delays that differ).
            recorder.count(.pushesDeliveredOutOfOrder, atNanos: now)
        }
        recorder.record(.pushDelivery, micros: Int64((now &- push.acceptedNanos) / 1000), atNanos: now)
        if let scope = faultScope(local, acceptedNanos: push.acceptedNanos) {
            recorder.record(.scoped(scope, .pushDelivery), micros: Int64((now &- push.acceptedNanos) / 1000), atNanos: now)
        }
        recorder.count(.pushesReceived(push.pushType.rawValue), atNanos: now)
        if push.pushType == .voip, delaysReport(push, local: local, now: now) { return }
        process(push, local: local, delivered: now)
    }

    /// Delivers the pushes a reorder fault held for `local` once a later push has been delivered: they arrive
    /// after it, in the order they were held.
    func releaseAllHeld(_ local: Int) {
        guard !finished, !devices[local].held.isEmpty else { return }
        for push in devices.takeAllHeld(local) {
            books.pendingDeliveries -= 1
            receive(push, local: local)
        }
    }

    /// A held push whose bound ran out with no later push to overtake it.
    func releaseHeld(_ local: Int, serial: UInt64) {
        guard !finished, let push = devices.takeHeld(local, serial: serial) else { return }
        books.pendingDeliveries -= 1
        receive(push, local: local)
    }

    /// Which side of the fault windows a push falls on, by the rule injection uses (its call's planned time, else
    /// when it was accepted), for per-window push metrics: `fault.<window>` (the first window covering it) or
    /// `no_fault`; nil when the scenario has no faults.
    func faultScope(_ local: Int, acceptedNanos: UInt64) -> String? {
        guard !faults.isEmpty, loadStart > 0 else { return nil }
        let since = faultTime(local) ?? (acceptedNanos > loadStart ? acceptedNanos - loadStart : 0)
        return faults.windows.first { $0.contains(since) }.map { "fault.\($0.name)" } ?? "no_fault"
    }

    /// The app handles a delivered push (at once, or after a slow-app fault's delay).
    func process(_ push: APNsPush, local: Int, delivered: UInt64) {
        let now = clock.nowNanos()
        guard !finished else { return }
        let payload = api.reader.push(push.payload)
        if let trace = settings.trace, let call = devices[local].callID, trace.traces(call) {
            trace.push(call: call, device: devices[local].identity.id, pushType: push.pushType.rawValue,
                       payload: push.payload, t: now &- books.runStart)
        }
        // In the history the push comes before anything the device does because of it.
        let runStart = books.runStart
        if let journal = books.journal, let uuid = payload?.uuid {
            let device = devices[local].identity.id
            let event = push.pushType == .voip ? "voip" : (payload?.event ?? "unknown")
            journal.history {
                HistoryText.push(t: now &- runStart, device: device, event: event, conversation: uuid,
                                 into: payload?.into, view: payload?.view, into: &$0)
            }
        }
        var reported: UInt64?
        if push.pushType == .voip {
            reported = clock.nowNanos()
            receiveVoIP(push, payload: payload, local: local, now: reported!)
        } else {
            receiveBackground(payload, local: local, now: now)
        }
        if let journal = books.journal {
            journal.push(PushRow(
                apnsID: push.apnsID, device: devices[local].identity.id, pushType: push.pushType.rawValue,
                acceptedNanos: push.acceptedNanos &- runStart, deliveredNanos: delivered &- runStart,
                reportedNanos: reported.map { $0 &- runStart },
                deadlineMissed: reported.map { $0 &- push.acceptedNanos > settings.deadlineNanos } ?? false))
        }
    }

    private func receiveVoIP(_ push: APNsPush, payload: PushPayload?, local: Int, now: UInt64) {
        let latency = now &- push.acceptedNanos
        let judged = devices.judgeVoIP(payload, apnsID: push.apnsID, on: local, ageNanos: latency,
                                       foreground: sockets?.lifecycle.isForeground(local) ?? false,
                                       judge: VoIPPushJudge(longDelayNanos: settings.deadlineNanos))
        guard case .newCall(let uuid) = judged else { return answerWithoutCall(judged, local: local, now: now) }
        recorder.record(.pushToReport, micros: Int64(latency / 1000), atNanos: now)
        if let scope = faultScope(local, acceptedNanos: push.acceptedNanos) {
            recorder.record(.scoped(scope, .pushToReport), micros: Int64(latency / 1000), atNanos: now)
        }
        let missed = latency > settings.deadlineNanos
        if missed {
            // iOS terminates an app that did not report in time; after repeated misses it stops launching it
            // for VoIP pushes (`voipBlockAfterMisses`).
            recorder.count(.pushDeadlineMissed, atNanos: now)
            if devices.missedDeadline(local, blockAfter: settings.voipBlockAfterMisses) {
                recorder.count(.devicesVoIPBlocked, atNanos: now)
            }
        }
        guard let payload else { return }
        if missed, let id = devices[local].callID, calls[id]?.waitsForPush(uuid, on: local) == true {
            apply(calls[id]!.terminateApp(local, now: now, &context), call: id, now: now)
            return
        }
        if missed { recorder.count(.devicesTerminatedForMissedDeadline, atNanos: now) }
        let refusal = devices.reportIncoming(local, payload: payload, uuid: uuid, now: now)
        recorder.count(.conversationsReported, atNanos: now)
        if refusal != nil { recorder.count(.conversationsRefusedOverLimit, atNanos: now) }
        socketPushReported(local, conversation: uuid, acceptedNanos: push.acceptedNanos)
        guard let id = devices[local].callID, calls[id] != nil else {
            recorder.count(.pushesUnexpected, atNanos: now)
            return
        }
        apply(calls[id]!.pushReported(device: local, conversation: uuid, now: now, &context), call: id, now: now)
    }

    /// A VoIP push without a new call: the app ignores it, reports and ends, or is terminated (`VoIPPushJudge`).
    private func answerWithoutCall(_ judged: VoIPPushJudge.Outcome, local: Int, now: UInt64) {
        let answer = devices.answerWithoutCall(judged, on: local, policy: settings.voipWithoutCall,
                                               blockAfter: settings.voipBlockAfterMisses)
        for name in answer.counters { recorder.count(name, atNanos: now) }
        guard answer.terminated, let id = devices[local].callID, calls[id] != nil else { return }
        apply(calls[id]!.terminateApp(local, now: now, withoutCall: true, &context), call: id, now: now)
    }

    /// A background push, or a message on the device's socket (`counters`: `socket.events`), folded into the
    /// device's view: the observation seam.
    func receiveBackground(_ payload: PushPayload?, local: Int, now: UInt64, counters: Metric.ObservationChannel = .pushes) {
        let id = devices[local].callID
        switch devices.observeBackground(payload, on: local, inCall: id.map { calls[$0] != nil } ?? false) {
        case .badPayload: recorder.count(.observed(counters, "bad_payload"), atNanos: now)
        case .mergedBeforeKnown: recorder.count(.observed(counters, "merged_before_known"), atNanos: now)
        case .stale: recorder.count(.observed(counters, "stale"), atNanos: now)
        case .applied(let outOfOrder):
            if outOfOrder { recorder.count(.observed(counters, "out_of_order"), atNanos: now) }
            guard let id, calls[id] != nil else { return }
            apply(calls[id]!.deviceChanged(local, now: now, &context), call: id, now: now)
        }
    }
}
