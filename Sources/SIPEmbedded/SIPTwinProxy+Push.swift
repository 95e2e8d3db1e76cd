import PushModel
import SIP
import SIPClient

/// The cfg's WITH_PUSH routes: PUSH, STALE, PARK, and the wake REGISTER's ts_append / t_continue (WAKE).
extension SIPTwinProxy {
    /// Parks the INVITE of `key` for `user` (relayed to the stale contact over UDP, suspended over TCP) and sends
    /// the VoIP push.
    func pushRoute(_ key: TwinKey, user: String, binding: SIPTwinBinding, parameters: PushContactParameters,
                   now: UInt64) {
        stats.parked += 1
        parked[user, default: []].append(key)
        if binding.endpoint.transport.isStream {
            relays[key]?.park = .suspended
        } else {
            relays[key]?.park = .append
            relayBranch(key, to: binding.contact, now: now)  // refused at once: it waits without a branch
        }
        sendVoIPPush(key, parameters: parameters, now: now)
    }

    /// The VoIP push for the INVITE of `key` to the device of `parameters` (token `pn-prid`, topic `pn-param`
    /// without its team, priority 10, payload with `uuid` = Call-ID and `handle` = the From URI).
    func sendVoIPPush(_ key: TwinKey, parameters: PushContactParameters, now: UInt64) {
        guard let route = configuration.push, let request = relays[key]?.request else { return }
        stats.pushes += 1
        let callID = request.callID ?? ""
        let from = request.from?.uri ?? ""
        let payload = "{\"aps\":{},\"uuid\":\"\(callID)\",\"handle\":\"\(from)\",\"sip\":{\"call-id\":\"\(callID)\","
            + "\"from\":\"\(from)\"}}"
        route.gateway(APNsPush(token: parameters.prid, apnsID: "twin-push-\(stats.pushes)", pushType: .voip,
                               topic: Self.voipTopic(of: parameters), priority: 10, expiration: nil,
                               collapseID: nil, payload: Array(payload.utf8), acceptedNanos: now))
    }

    /// `user` REGISTERed (its 200 sent): each INVITE parked for it gets a branch to the new contact (UDP), or goes
    /// on towards it (TCP, once).
    func woke(_ user: String, now: UInt64) {
        guard let keys = parked[user], let binding = binding(of: user) else { return }
        for key in keys {
            guard let relay = relays[key], !relay.finished, let park = relay.park else { continue }
            switch park {
            case .append:
                let reaching = relay.branches.contains {
                    branches[$0]?.to == binding.endpoint && branches[$0]?.final == nil
                }
                guard !reaching else { continue }
                stats.woken += 1
                relayBranch(key, to: binding.contact, now: now)
            case .suspended:
                stats.woken += 1
                unpark(key)
                if !relayBranch(key, to: binding.contact, now: now) { replyOwn(key, 477, now: now) }
            }
        }
    }

    /// The INVITE of `key` waits for no wake REGISTER any more.
    func unpark(_ key: TwinKey) {
        guard relays[key]?.park != nil else { return }
        relays[key]?.park = nil
        for (user, keys) in parked where keys.contains(key) {
            parked[user] = keys.filter { $0 != key }
            if parked[user]?.isEmpty == true { parked[user] = nil }
        }
    }
}
