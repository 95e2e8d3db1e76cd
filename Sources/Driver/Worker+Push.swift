import CallModel
import PushGateway
import Results

/// Pushes reaching a device: VoIP pushes are reported at once (PushKit's rule) and measured; background pushes
/// carry the server's view of a conversation after someone else's action.
extension Worker {
    /// Called on the queue by the push sink.
    func receive(_ push: APNsPush, local: Int) {
        let now = clock.nowNanos()
        guard !finished else { return }
        recorder.record("push_delivery", micros: Int64((now &- push.acceptedNanos) / 1000), atNanos: now)
        recorder.count("pushes.received.\(push.pushType.rawValue)", atNanos: now)
        let payload = ViewDecoder.push(push.payload)
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
                acceptedNanos: push.acceptedNanos &- runStart, deliveredNanos: now &- runStart,
                reportedNanos: reported.map { $0 &- runStart },
                deadlineMissed: reported.map { $0 &- push.acceptedNanos > settings.deadlineNanos } ?? false))
        }
    }

    private func receiveVoIP(_ push: APNsPush, payload: ViewDecoder.PushJSON?, local: Int, now: UInt64) {
        let latency = now &- push.acceptedNanos
        recorder.record("push_to_report", micros: Int64(latency / 1000), atNanos: now)
        if latency > settings.deadlineNanos {
            recorder.count("push.deadline_missed", atNanos: now)
            devices[local].deadlineMisses += 1
        }
        guard let uuid = payload?.uuid else {
            recorder.count("pushes.bad_payload", atNanos: now)
            return
        }
        if devices[local].manager.conversations[uuid] != nil {
            recorder.count("pushes.duplicate_voip", atNanos: now)
            return
        }
        var caller: Handle?
        if let h = payload?.handle, let value = h.value {
            caller = Handle(kind: Handle.Kind(rawValue: h.kind ?? "") ?? .generic, value: value,
                            displayName: h.displayName ?? value)
        }
        let refusal = devices[local].manager.reportIncoming(
            uuid: uuid, caller: caller, capabilities: Capabilities(names: payload?.capabilities ?? []))
        if let view = payload?.conversation?.view { devices[local].manager.apply(view) }
        devices[local].reportedAt[uuid] = now
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

    private func receiveBackground(_ payload: ViewDecoder.PushJSON?, local: Int, now: UInt64) {
        guard let payload, let uuid = payload.uuid, let event = payload.event else {
            recorder.count("pushes.bad_payload", atNanos: now)
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
            if let view {
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
