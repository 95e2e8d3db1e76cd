import CallModel
import Chaos
import Foundation
import Metrics
import PushGateway
import Results
import Scenario

/// Pushes reaching a device: VoIP pushes are reported at once (PushKit's rule) and measured; background pushes
/// carry the server's view of a conversation after someone else's action.
extension Worker {
    /// Called on the queue by the push sink.
    func receive(_ push: APNsPush, local: Int) {
        let now = clock.nowNanos()
        guard !finished else {
            countLate(Books.Counter.undelivered)
            return
        }
        if let expiration = push.expiration, expiration > 0, Int64(Date().timeIntervalSince1970) > expiration {
            // Delivered after its apns-expiration (a delay fault): APNs would have discarded it.
            recorder.count("pushes.expired_discarded", atNanos: now)
            return
        }
        if push.pushType == .voip, devices[local].deadlineMisses >= settings.voipBlockAfterMisses {
            // iOS stops launching an app for VoIP pushes after it repeatedly failed to report them.
            recorder.count("pushes.blocked_after_missed_deadlines", atNanos: now)
            return
        }
        recorder.count(Books.Counter.delivered, atNanos: now)
        if push.acceptedNanos < devices[local].lastDeliveredAccepted {
            // Overtaken by a push the gateway accepted later (a reorder fault, or delays that differ).
            recorder.count("pushes.delivered_out_of_order", atNanos: now)
        } else {
            devices[local].lastDeliveredAccepted = push.acceptedNanos
        }
        recorder.record("push_delivery", micros: Int64((now &- push.acceptedNanos) / 1000), atNanos: now)
        if let scope = faultScope(local, acceptedNanos: push.acceptedNanos) {
            recorder.record("\(scope).push_delivery", micros: Int64((now &- push.acceptedNanos) / 1000), atNanos: now)
        }
        recorder.count("pushes.received.\(push.pushType.rawValue)", atNanos: now)
        if push.pushType == .voip, !faults.isEmpty, let since = sinceLoad(), let planned = faultTime(local),
           let key = faultSubject(local) {
            let device = devices[local].identity.index
            let flow = calls[key.call]?.flow.name ?? ""
            if let (delay, note) = faults.reportDelay(device: device, subject: key.subject, plannedSinceLoad: planned,
                                                      flow: flow) {
                recorder.count(MetricName.fault(note.kind), atNanos: now)
                faultLog.add(.init(sinceLoadNanos: since, window: note.window, kind: note.kind,
                                   device: device, seq: 0, call: key.call, role: key.role))
                schedule(.report(push: push, local: local), at: now + delay)
                rearm()
                return
            }
        }
        process(push, local: local, delivered: now)
    }

    /// Delivers the pushes a reorder fault held for `local` once a later push has been delivered: they arrive
    /// after it, in the order they were held.
    func releaseAllHeld(_ local: Int) {
        guard !finished, !devices[local].held.isEmpty else { return }
        let held = devices[local].held
        devices[local].held.removeAll()
        for entry in held {
            pendingDeliveries -= 1
            receive(entry.push, local: local)
        }
    }

    /// A held push whose bound ran out with no later push to overtake it.
    func releaseHeld(_ local: Int, serial: UInt64) {
        guard !finished, let i = devices[local].held.firstIndex(where: { $0.serial == serial }) else { return }
        let push = devices[local].held.remove(at: i).push
        pendingDeliveries -= 1
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
        let payload = api.isReference ? ViewDecoder.push(push.payload) : mappedPayload(push.payload)
        // In the history the push comes before anything the device does because of it.
        if let journal, let uuid = payload?.uuid {
            journal.history(HistoryText.push(
                t: now &- runStart, device: devices[local].identity.id,
                event: push.pushType == .voip ? "voip" : (payload?.event ?? "unknown"), conversation: uuid,
                into: payload?.into, view: payload?.conversation?.view))
        }
        var reported: UInt64?
        if push.pushType == .voip {
            reported = clock.nowNanos()
            receiveVoIP(push, payload: payload, local: local, now: reported!)
        } else {
            receiveBackground(payload, local: local, now: now)
        }
        if let journal {
            journal.push(PushRow(
                apnsID: push.apnsID, device: devices[local].identity.id, pushType: push.pushType.rawValue,
                acceptedNanos: push.acceptedNanos &- runStart, deliveredNanos: delivered &- runStart,
                reportedNanos: reported.map { $0 &- runStart },
                deadlineMissed: reported.map { $0 &- push.acceptedNanos > settings.deadlineNanos } ?? false))
        }
    }

    /// A push from a server with its own payload shape, read through `target.api.push`.
    private func mappedPayload(_ bytes: [UInt8]) -> ViewDecoder.PushJSON? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(bytes)) else { return nil }
        let fields = api.mapping.push
        let uuid = JSONPath(fields.conversation)?.string(in: json)
        var event = JSONPath(fields.event)?.string(in: json)
        if let e = event { event = fields.ended.contains(e) ? "ended" : (fields.joined.contains(e) ? "joined" : e) }
        return ViewDecoder.PushJSON(uuid: uuid, handle: nil, capabilities: nil, event: event, device: nil,
                                    version: nil, ended: nil, reason: nil, into: nil, conversation: nil)
    }

    private func receiveVoIP(_ push: APNsPush, payload: ViewDecoder.PushJSON?, local: Int, now: UInt64) {
        let latency = now &- push.acceptedNanos
        recorder.record("push_to_report", micros: Int64(latency / 1000), atNanos: now)
        if let scope = faultScope(local, acceptedNanos: push.acceptedNanos) {
            recorder.record("\(scope).push_to_report", micros: Int64(latency / 1000), atNanos: now)
        }
        let missed = latency > settings.deadlineNanos
        if missed {
            // iOS terminates an app that did not report in time; after repeated misses it stops launching it
            // for VoIP pushes (`voipBlockAfterMisses`).
            recorder.count("push.deadline_missed", atNanos: now)
            devices[local].deadlineMisses += 1
            if devices[local].deadlineMisses == settings.voipBlockAfterMisses {
                recorder.count("devices.voip_blocked", atNanos: now)
            }
        }
        guard let uuid = payload?.uuid else {
            recorder.count("pushes.bad_payload", atNanos: now)
            return
        }
        if devices[local].manager.conversations[uuid] != nil {
            recorder.count("pushes.duplicate_voip", atNanos: now)
            return
        }
        if missed, let id = devices[local].callID, calls[id]?.waiting == .push(device: local, conversation: uuid) {
            terminateApp(local, id, now: now)
            return
        }
        if missed { recorder.count("devices.terminated_for_missed_deadline", atNanos: now) }
        var caller: Handle?
        if let h = payload?.handle, let value = h.value {
            caller = Handle(kind: Handle.Kind(rawValue: h.kind ?? "") ?? .generic, value: value,
                            displayName: h.displayName ?? value)
        }
        let refusal = devices[local].manager.reportIncoming(
            uuid: uuid, caller: caller, capabilities: Capabilities(names: payload?.capabilities ?? []))
        if let view = payload?.conversation?.view { devices[local].manager.apply(view) }
        devices[local].reportedAt[uuid] = now
        if let sent = payload?.sentAt { devices[local].pushSentAt[uuid] = sent }
        recorder.count("conversations.reported", atNanos: now)
        if refusal != nil { recorder.count("conversations.refused_over_limit", atNanos: now) }
        guard let id = devices[local].callID, calls[id] != nil else {
            recorder.count("pushes.unexpected", atNanos: now)
            return
        }
        if calls[id]?.waiting == .push(device: local, conversation: uuid) {
            pushArrived(id, device: local, uuid: uuid, now: now)
            advance(id, now: now, planned: now)
        }
    }

    /// iOS kills an app that reports a VoIP push too late: the call is never shown (the call is missed, ended
    /// as unanswered), and every action the app had in flight fails (`app_terminated`). Applied while the call
    /// waits for this push (the callee is only ringing); a late push in a call that already moved on is counted
    /// as a termination and reported, since the flow's other devices act on that conversation.
    private func terminateApp(_ local: Int, _ id: Int, now: UInt64) {
        recorder.count("devices.terminated_for_missed_deadline", atNanos: now)
        guard let run = calls[id] else { return }
        for (slot, action) in run.actions.enumerated() where !action.isFinished && run.actors[slot] == local {
            finishAction(id, slot, .failed(reason: "app_terminated"), now: now)
        }
        recorder.count("calls.app_terminated", atNanos: now)
        calls[id]?.missed = true
        fail(id, "the app was terminated: it reported the VoIP push after the deadline", now: now)
    }

    private func receiveBackground(_ payload: ViewDecoder.PushJSON?, local: Int, now: UInt64) {
        guard let payload, let uuid = payload.uuid, let event = payload.event else {
            recorder.count("pushes.bad_payload", atNanos: now)
            return
        }
        if event == "merged", let id = devices[local].callID, calls[id] != nil,
           devices[local].manager.conversations[uuid] == nil {
            // The merge of a conversation this device has not heard of yet: an earlier push (the one that moved
            // it there) is still in flight. It is gone for good; the device is connected in `into`.
            devices[local].manager.markMergedAway(uuid)
            let mine = payload.conversation?.view.state(of: devices[local].identity.id)
            if let view = payload.conversation?.view, mine == "joined" || mine == "held",
               devices[local].manager.conversations[view.uuid] == nil,
               !devices[local].manager.mergedAway.contains(view.uuid) {
                devices[local].manager.adopt(view)
                callByConversation[view.uuid] = id
            }
            recorder.count("pushes.merged_before_known", atNanos: now)
            return
        }
        guard let id = devices[local].callID, calls[id] != nil,
              devices[local].manager.conversations[uuid] != nil else {
            recorder.count("pushes.stale", atNanos: now)
            return
        }
        var manager = devices[local].manager
        let view = payload.conversation?.view
        switch event {
        case "merged":
            // Someone merged our conversation into `into`: this one ended, and we are connected in the other.
            manager.remoteEnded(uuid, reason: .joinedElsewhere)
            manager.markMergedAway(uuid)
            // A view of a conversation already merged away is an older push arriving late: it stays ended.
            if let view, !manager.mergedAway.contains(view.uuid) {
                if manager.conversations[view.uuid] == nil { manager.adopt(view) } else { manager.apply(view) }
                callByConversation[view.uuid] = id
            }
        case "split":
            // We were unmerged out of `uuid` into a conversation of our own with the one who did it.
            manager.remoteEnded(uuid, reason: .joinedElsewhere)
            if let view {
                if manager.conversations[view.uuid] == nil { manager.adopt(view) } else { manager.apply(view) }
                callByConversation[view.uuid] = id
            }
        default:
            if let view, !manager.apply(view) { recorder.count("pushes.out_of_order", atNanos: now) }
            if event == "joined" && view == nil { manager.connected(uuid) }
            if event == "ended" || view?.ended == true {
                manager.remoteEnded(uuid, reason: payload.reason == "unanswered" ? .unanswered : .remoteEnded)
            }
        }
        devices[local].manager = manager
        switch calls[id]?.waiting {
        case .end(let d, let c)? where d == local && manager.conversations[c]?.state ?? .left == .left:
            advance(id, now: now, planned: now)
        case .connected(let d, let c)? where d == local && manager.conversations[c]?.state != .joining:
            advance(id, now: now, planned: now)
        default:
            break
        }
    }
}
