import PushModel
import SIP
import SIPClient

/// The cfg's WITH_FORK routes (deploy/kamailio/fork.cfg): FORK, FORKBRANCH's parking, FORKWAKE and FORKDONE.
extension SIPTwinProxy {
    /// An INVITE to `user` with several bindings: a branch to each awake one now; each sleeping one (push
    /// parameters, a push route) gets a VoIP push and a park that holds the transaction until the push timeout
    /// (Kamailio's parking branch), so an awake device's refusal does not end the call before the others wake.
    func forkRoute(_ key: TwinKey, user: String, now: UInt64) {
        let live = bindings(of: user)
        guard !live.isEmpty else { return replyOwn(key, 404, now: now) }
        let sleeping = live.filter { $0.push != nil && configuration.push != nil }
        if let push = configuration.push, !sleeping.isEmpty {
            relays[key]?.deadline = now + push.timeoutNanos
            relays[key]?.answerNanos = push.timeoutNanos
            relays[key]?.park = .append
            relays[key]?.parks = sleeping.count
            parked[user, default: []].append(key)
            stats.parked += 1
        }
        var relayed = false
        for binding in live where binding.push == nil || configuration.push == nil {
            relayed = relayBranch(key, to: binding.contact, now: now) || relayed
        }
        if !relayed, sleeping.isEmpty { return replyOwn(key, 477, now: now) }
        for binding in sleeping {
            guard let parameters = binding.push else { continue }
            forks.pushedFor[parameters.prid] = relays[key]?.request.callID
            sendVoIPPush(key, parameters: parameters, now: now)
        }
    }

    /// A device of `user` REGISTERed `binding` (its 200 sent): each INVITE parked for the user gets a branch to it
    /// unless one already goes there (tsilo's ts_append); a device whose call ended before it woke is told how
    /// by a background push (`forkTellsLateWake`), never a VoIP one.
    func forkWoke(_ user: String, binding: SIPTwinBinding, now: UInt64) {
        for key in parked[user] ?? [] {
            guard let relay = relays[key], !relay.finished, relay.park != nil else { continue }
            let reaching = relay.branches.contains { branches[$0]?.to == binding.endpoint }
            guard !reaching else { continue }
            stats.woken += 1
            relayBranch(key, to: binding.contact, now: now)
        }
        guard let prid = binding.push?.prid, let callID = forks.pushedFor.removeValue(forKey: prid),
              let ended = forks.ended[callID], configuration.forkTellsLateWake,
              let route = configuration.push, let parameters = binding.push else { return }
        stats.lateTold += 1
        let payload = "{\"aps\":{\"content-available\":1},\"uuid\":\"\(callID)\",\"event\":\"ended\","
            + "\"reason\":\"\(ended)\"}"
        route.gateway(APNsPush(token: prid, apnsID: "twin-late-\(stats.lateTold)", pushType: .background,
                               topic: Self.bundle(of: parameters), priority: 5, expiration: nil, collapseID: nil,
                               payload: Array(payload.utf8), acceptedNanos: now))
    }

    /// How a forked call ended, for a device that wakes later: joined elsewhere (a 2xx), declined elsewhere (a 6xx),
    /// or unanswered (the caller's CANCEL, a timeout, every branch refused).
    func forkEnded(_ key: TwinKey, status: Int) {
        guard configuration.fork, let callID = relays[key]?.request.callID, forks.ended[callID] == nil else { return }
        relays[key]?.parks = 0
        forks.ended[callID] = status / 100 == 2 ? "joinedElsewhere" : status >= 600 ? "declinedElsewhere" : "unanswered"
    }

    /// `pn-param` without its team and its `.voip` service: the app's bundle, a background push's topic.
    static func bundle(of parameters: PushContactParameters) -> String {
        var topic = voipTopic(of: parameters)
        if topic.hasSuffix(".voip") { topic.removeLast(5) }
        return topic
    }

    /// `pn-param` without its team: a VoIP push's topic.
    static func voipTopic(of parameters: PushContactParameters) -> String {
        let param = parameters.param
        return param.firstIndex(of: ".").map { String(param[param.index(after: $0)...]) } ?? param
    }
}

/// What the forking routes remember across requests (fork.cfg's htables fpush and fdone).
struct SIPTwinForkBooks {
    /// The Call-ID each sleeping device (by push token) was last pushed for.
    var pushedFor: [String: String] = [:]
    /// How each forked call ended, by Call-ID: `joinedElsewhere`, `declinedElsewhere`, `unanswered`.
    var ended: [String: String] = [:]
}
