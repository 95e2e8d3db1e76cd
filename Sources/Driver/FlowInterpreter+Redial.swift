import CallModel
import Metrics
import Scenario

/// Redial from Recents: a start to the handle of the device's last ended conversation (the session: "the value
/// … is what your app gets back when someone redials from Recents").
extension FlowInterpreter {
    mutating func redial(_ step: FlowStep, by local: Int, conversation name: String, planned: UInt64, now: UInt64,
                         _ ctx: inout FlowContext) {
        let refusal: String?
        var callee: String?
        if !config.includesInRecents {
            refusal = "not_in_recents"  // includesConversationInRecents: false lists nothing to redial
        } else if let handle = lastEndedRemote(of: local, ctx.devices) {
            callee = roles.entries.first { ctx.devices[$0.device].identity.handle.value == handle.value }?.role
            refusal = callee == nil ? "not_in_this_call" : nil
        } else {
            refusal = "no_recent_conversation"
        }
        guard let callee, refusal == nil else {
            let reason = refusal ?? "no_recent_conversation"
            let slot = newAction(.start, by: local, step: step.name, conversation: "", planned: planned, now: now,
                                 &ctx)
            finishAction(slot, .failed(reason: "redial:\(reason)"), now: now)
            count(.redialRefused(reason))
            fail("redial refused: \(reason)", now: now, &ctx)
            return
        }
        count(.redialsStarted)
        start(step, by: local, to: [callee], conversation: name, video: false, planned: planned, now: now, &ctx)
    }

    /// The call dropped: it failed once a conversation of it existed (not missed: a missed call never rang), as
    /// when the target is killed mid-call. Its caller may redial (`behavior.redial_after_drop`).
    var dropped: Bool { status.failed && !status.missed && !known.conversations.isEmpty }

    /// The other side's handle in the device's last ended conversation: this call's newest one that ended on the
    /// device (`callRemote`), else the newest of its Recents.
    func lastEndedRemote(of local: Int, _ devices: DeviceModel) -> Handle? {
        let manager = devices[local].manager
        var ended = SmallStringMap<String>()
        for (name, uuid) in known.conversations where manager.conversations[uuid]?.state == .left { ended[name] = uuid }
        return callRemote(of: local, devices, among: ended) ?? devices[local].recents.last { $0.remote != nil }?.remote
    }

    /// The other side of `local` in this call's newest conversation (by start time) among `among` (default: all
    /// of the call's): whoever started it, or the first it called; else the first member the device lists. A view
    /// of an ended call lists nobody, so the call's own record names the other side.
    func callRemote(of local: Int, _ devices: DeviceModel, among: SmallStringMap<String>? = nil) -> Handle? {
        let candidates = among ?? known.conversations
        guard let newest = candidates.max(by: { (known.startIssued[$0.key] ?? 0) < (known.startIssued[$1.key] ?? 0) })
        else { return nil }
        if let starter = known.starters[newest.key],
           let other = starter == local ? known.callees[newest.key]?.first : starter {
            return devices[other].identity.handle
        }
        // Read where it is: a `let` of the manager up front copied it whole at every call's end.
        return devices[local].manager.conversations[newest.value]?.members.first
    }
}
