import CallModel
import Metrics
import Scenario

/// A call's devices beyond the ones acting for its roles (`users:`, issue 36): the other devices of each role's
/// user. A callee user's others ring with the call and must end `joinedElsewhere` once one answers (or
/// `declinedElsewhere` once one declines, by the server's declared policy); a caller user's others must not ring
/// at all. Every kind of signaling ends them the same way (a push, a socket event, a SIP CANCEL all arrive as an
/// observation of the device), so nothing here is per kind.
struct ElsewhereState {
    /// Another device of a role's user (worker-local) → the device acting for that role.
    var others: [Int: Int] = [:]
    /// Conversation → when a device of a user answered or declined it (the request sent), and which.
    var decided: [String: Decision] = [:]
    /// `<device>/<conversation>` pairs already judged, so each is measured once.
    var settled: Set<String> = []
    /// When the call's flow ended, while its completion waits for a ringing device's grace (`finishElsewhere`).
    var flowEndedAt: UInt64?

    struct Decision {
        let at: UInt64
        let by: Int
        let declined: Bool
    }

    var isEmpty: Bool { others.isEmpty }
}

extension FlowInterpreter {
    /// The other devices of the roles' users, in index order.
    var elsewhereDevices: [Int] { known.elsewhere.others.keys.sorted() }

    /// Every device of the call: the acting ones, then the roles' users' others.
    func allDevices() -> [Int] { devices() + elsewhereDevices }

    /// A join or decline leaves for the server: the moment each other device's end is measured from.
    mutating func noteDecision(_ op: ActionOp, by local: Int, conversation uuid: String, now: UInt64) {
        guard op == .join || op == .decline, !known.elsewhere.isEmpty, known.elsewhere.decided[uuid] == nil,
              known.elsewhere.others.values.contains(local) else { return }
        known.elsewhere.decided[uuid] = .init(at: now, by: local, declined: op == .decline)
    }

    /// Another device of a role's user reported the VoIP push of `uuid`: it rings. A caller's own other device
    /// must not (the server rang the caller's user with its own call).
    mutating func elsewhereRang(_ local: Int, conversation uuid: String) {
        guard let acting = known.elsewhere.others[local] else { return }
        if known.conversations.contains(where: { known.starters[$0.key] == acting && $0.value == uuid }) {
            count(.elsewhereOutgoingRang)
        }
    }

    /// Another device of a role's user applied a change: once its conversation is over after the answer (or
    /// decline) elsewhere, how long that took, and whether the reason was the right one.
    mutating func elsewhereChanged(_ local: Int, now: UInt64, _ devices: DeviceModel) {
        guard known.elsewhere.others[local] != nil else { return }
        for uuid in Set(known.conversations.values) {
            guard let decision = known.elsewhere.decided[uuid],
                  let c = devices[local].manager.conversations[uuid], c.state == .left,
                  known.elsewhere.settled.insert("\(local)/\(uuid)").inserted else { continue }
            if decision.declined && config.users?.onDecline == .keepRinging { continue }
            let expected: EndedReason = decision.declined ? .declinedElsewhere : .joinedElsewhere
            if c.endedReason == expected || c.endedReason == .joinedElsewhere || c.endedReason == .declinedElsewhere {
                emit(.record(.elsewhereEndDelay, micros: Int64((now &- decision.at) / 1000)))
            } else {
                count(.elsewhereWrongReason)
                emit(.note("\(devices[local].identity.id) ended \(uuid) as \(c.endedReason?.rawValue ?? "?") after "
                           + "it was \(decision.declined ? "declined" : "answered") on another device", limit: 20))
            }
        }
    }

    /// The device acting for a role never rang `uuid` while other devices of its user did: the first of those
    /// (by index) takes the role, as a person picks up whichever device rings. Returns it, nil when none rang.
    mutating func takeOver(from acting: Int, conversation uuid: String, _ devices: DeviceModel) -> Int? {
        let ringing = known.elsewhere.others.filter { $0.value == acting }.keys.sorted()
            .filter { devices[$0].manager.conversations[uuid]?.state == .idle }
        guard let next = ringing.first, let role = flow.roles.first(where: { roles[$0] == acting }) else { return nil }
        roles[role] = next
        for (other, by) in known.elsewhere.others where by == acting { known.elsewhere.others[other] = next }
        known.elsewhere.others[next] = nil
        known.elsewhere.others[acting] = next
        for (name, list) in known.callees { known.callees[name] = list.map { $0 == acting ? next : $0 } }
        return next
    }

    /// The call's flow is over: the others are judged now, or, while a device still rings a conversation decided
    /// less than the grace ago (a decline ends the call at once), when that grace runs out, so one left ringing
    /// after a decline is counted as one left ringing after an answer. The call then completes, its duration
    /// still the flow's.
    mutating func finishElsewhere(now: UInt64, _ devices: DeviceModel) {
        let ended = known.elsewhere.flowEndedAt ?? now
        if let at = elsewhereGraceEnd(devices), at > now {
            if known.elsewhere.flowEndedAt == nil { emit(.arm(.elsewhereGrace, at: at)) }
            known.elsewhere.flowEndedAt = ended
            waiting = .timer
            waitToken &+= 1
            return
        }
        known.elsewhere.flowEndedAt = nil  // a grace timer still armed finds nothing to do
        settleElsewhere(now: now, devices)
        complete(now: ended)
    }

    /// The grace `finishElsewhere` waited for ran out: the others are judged and the call completes.
    mutating func elsewhereGraceOver(now: UInt64, _ devices: DeviceModel) {
        guard let ended = known.elsewhere.flowEndedAt else { return }
        known.elsewhere.flowEndedAt = nil
        settleElsewhere(now: now, devices)
        complete(now: ended)
    }

    /// Just past the latest grace of another device still ringing a decided conversation, nil when none rings.
    private func elsewhereGraceEnd(_ devices: DeviceModel) -> UInt64? {
        guard !known.elsewhere.isEmpty else { return nil }
        let grace = config.users?.graceNanos ?? UsersSpec.defaultGraceNanos
        var latest: UInt64?
        for local in elsewhereDevices {
            for uuid in Set(known.conversations.values) {
                guard let decision = known.elsewhere.decided[uuid],
                      devices[local].manager.conversations[uuid]?.state == .idle,
                      !(decision.declined && config.users?.onDecline == .keepRinging),
                      !known.elsewhere.settled.contains("\(local)/\(uuid)") else { continue }
                latest = max(latest ?? 0, decision.at &+ grace &+ 1_000_000)
            }
        }
        return latest
    }

    /// The call is over: every other device still ringing a conversation answered (or declined) elsewhere past
    /// the grace is counted, with how long it rang since, and blamed on the server.
    mutating func settleElsewhere(now: UInt64, _ devices: DeviceModel) {
        guard !known.elsewhere.isEmpty else { return }
        let grace = config.users?.graceNanos ?? UsersSpec.defaultGraceNanos
        for local in elsewhereDevices {
            for uuid in Set(known.conversations.values).sorted() {
                guard let decision = known.elsewhere.decided[uuid],
                      devices[local].manager.conversations[uuid]?.state == .idle,
                      !(decision.declined && config.users?.onDecline == .keepRinging),
                      known.elsewhere.settled.insert("\(local)/\(uuid)").inserted else { continue }
                let since = max(decision.at, devices[local].reportedAt[uuid] ?? decision.at)
                guard now &- decision.at > grace else { continue }
                count(.elsewhereRingingAfterAnswer)
                emit(.record(.elsewhereRingingAfterAnswerDuration, micros: Int64((now &- since) / 1000)))
                emit(.note("\(devices[local].identity.id) of \(devices[local].identity.user ?? "?") still rang "
                           + "\(uuid) \((now &- decision.at) / 1_000_000) ms after it was "
                           + "\(decision.declined ? "declined" : "answered") on another device", limit: 20))
            }
        }
    }
}
