import CallModel
import Metrics
import Scenario

/// How a call ended before anyone answered it: the way (`ExpectedOutcome.Unanswered`) and, when the protocol said,
/// the status that ended it (a SIP final response to the caller's INVITE).
struct UnansweredEnd: Equatable {
    var way: ExpectedOutcome.Unanswered
    var status: Int?

    /// The word the books name it by: `sip_486` for a status, else the way.
    var name: String { status.map { "sip_\($0)" } ?? way.rawValue }
}

/// Calls that end unanswered (issue 32). A call completes only if someone answered it, or if it ended unanswered
/// the way its flow's `expect:` declares (a declined, cancelled or busy call is then the outcome the flow is for).
/// A refusal the flow does not declare (a SIP 486, the proxy's 408) fails the call, named by its status; an
/// `await_answer` on a call that ended without an answer fails it too, unless that end was declared.
extension FlowInterpreter {
    /// The caller's INVITE got final `status` before any answer (SIP signaling tells it before the device sees its
    /// conversation end). A 603 or 600 is a decline; anything else a refusal.
    mutating func refused(status code: Int, now: UInt64, _ ctx: inout FlowContext) -> [FlowEffect] {
        if !status.answered, status.unansweredEnd == nil {
            let way: ExpectedOutcome.Unanswered = code == 603 || code == 600 ? .declined : .refused
            status.unansweredEnd = UnansweredEnd(way: way, status: code)
        }
        return take()
    }

    /// An action of this call took effect: an answer makes the call answered; before any answer, a decline (or a
    /// callee's end) says it was declined, and the caller's end that it was cancelled (cleanup ends after a failure
    /// say nothing).
    mutating func noteFulfilled(_ request: ActionRequest) {
        if request.op == .join { status.answered = true }
        guard request.op == .decline || request.op == .end, !status.answered, !status.cleaningUp,
              status.unansweredEnd == nil else { return }
        let starter = known.starters.values.contains(request.device)
        status.unansweredEnd = UnansweredEnd(way: request.op == .end && starter ? .cancelled : .declined)
    }

    /// Whether a device of this call sees one of its conversations connected (the other side answered).
    mutating func noteConnected(_ local: Int, _ devices: DeviceModel) {
        guard !status.answered else { return }
        for uuid in known.conversations.values {
            let state = devices[local].manager.conversations[uuid]?.state
            if state == .joined || state == .paused { status.answered = true; return }
        }
    }

    /// A wait for `uuid` to be connected (`await_answer`, or an action that needs it connected) found it over
    /// before anyone answered: the flow stops there when its flow declares that end, and fails otherwise.
    mutating func endedUnanswered(_ uuid: String, by local: Int, now: UInt64, _ ctx: inout FlowContext) {
        count(.flowWait("ended_unanswered"))
        if declaredEnd { return stopAsDeclared(now: now, &ctx) }
        let how = status.unansweredEnd.map { $0.status.map { "it was refused with \($0)" } ?? "it was \($0.way)" }
            ?? "it ended"
        fail("\(how) before anyone answered (\(uuid) at \(ctx.devices[local].identity.id))", now: now, &ctx)
    }

    /// Whether nobody answered because the caller hung up while it rang. A call a device of ours placed: that
    /// device sent its end (its own act, so no order of packets changes it: a proxy's CANCEL that reaches the
    /// callee before the 408 it sent the caller is not the caller's choice), and a device saw the call end
    /// unanswered (an end that never reached the callee is a failure). A call an outside party placed: a device
    /// saw its conversation end `unanswered` with no refusal behind it; a proxy that CANCELs on its own looks the
    /// same from here (docs/SIP.md, Limits).
    func abandonedByCaller(_ model: DeviceModel) -> Bool {
        guard !status.answered else { return false }
        if !known.starters.isEmpty {
            guard status.callerHungUp else { return false }
        } else {
            guard status.unansweredEnd?.status == nil else { return false }
        }
        return devices().contains { local in
            known.conversations.values.contains { model[local].manager.conversations[$0]?.endedReason == .unanswered }
        }
    }

    /// Whether the call ended unanswered in a way its flow's `expect:` declares.
    var declaredEnd: Bool {
        guard !status.answered, let end = status.unansweredEnd else { return false }
        return flow.expect?.allows(end.way, status: end.status) == true
    }

    /// The call ended as its flow declares: the rest of the flow is for an answered call, so it stops here.
    mutating func stopAsDeclared(now: UInt64, _ ctx: inout FlowContext) {
        script.frames = []
        advance(now: now, planned: now, &ctx)
    }

    /// At the end of a call that nobody answered: its unanswered end is counted by how, and a refusal its flow does
    /// not declare fails it (a call completes only when answered, or unanswered as declared).
    mutating func judgeUnanswered() {
        guard !status.answered, !status.missed, let end = status.unansweredEnd else { return }
        let declared = declaredEnd
        if status.failed || (!declared && end.status != nil) {
            if !status.failed {
                status.failed = true
                status.failure = "the call was refused with \(end.status ?? 0) before anyone answered"
                count(metrics.failed)
            }
            if end.status != nil { count(.callsFailed(reason: end.name)) }
            return
        }
        count(.callsUnanswered(end.way.rawValue))
        if declared, end.status != nil { count(.callsUnanswered(end.name)) }
    }
}
