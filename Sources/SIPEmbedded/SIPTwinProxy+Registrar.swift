import SIP
import SIPClient

/// REGISTER as the cfg's route[REGISTRAR] answers it.
extension SIPTwinProxy {
    func register(_ request: SIPMessage, from: SIPEndpoint, now: UInt64) {
        guard let user = request.to.flatMap({ Self.user(of: $0.uri) }) else {
            return reply(request.response(400), over: from.transport, to: from)
        }
        if configuration.challengesRegister, !authorized(request, user: user) {
            let nonce = token()
            nonces.insert(nonce)
            var challenge = request.response(401, toTag: token())
            challenge.addHeader(.wwwAuthenticate, "Digest realm=\"\(configuration.realm)\", nonce=\"\(nonce)\"")
            return reply(challenge, over: from.transport, to: from)
        }
        let contact = request.contacts.first
        var saved: SIPTwinBinding?
        if let contact {
            let asked = contact.parameters["expires"].flatMap { Int($0) } ?? request.header(.expires).flatMap { Int($0) }
                ?? 600
            let instance = configuration.fork ? contact.parameters["+sip.instance"] : nil
            if asked == 0 {
                bindings[user]?.removeAll { $0.contact == contact.uri }
            } else if let endpoint = Self.endpoint(of: contact.uri) {
                let seconds = min(max(asked, configuration.minExpires), configuration.maxExpires)
                let binding = SIPTwinBinding(contact: contact.uri, endpoint: endpoint,
                                             expiresAt: now + UInt64(seconds) * 1_000_000_000,
                                             push: PushContactParameters(uri: contact.uri), instance: instance)
                save(binding, for: user)
                saved = binding
            }
        }
        var ok = request.response(200, toTag: token())
        for binding in bindings(of: user) {
            ok.addHeader(.contact, "<\(binding.contact)>;expires=\((binding.expiresAt - now) / 1_000_000_000)")
        }
        send(ok, over: from.transport, to: from)
        guard let saved else { return }
        if configuration.fork {
            forkWoke(user, binding: saved, now: now)
        } else {
            woke(user, now: now)
        }
    }

    /// save(): without `fork` the one binding of `user` (`save("location", "0x04")`); with it, the binding of the
    /// same device (its instance, else its contact) is replaced and any other kept.
    private func save(_ binding: SIPTwinBinding, for user: String) {
        guard configuration.fork else {
            bindings[user] = [binding]
            return
        }
        let now = network.clock.nowNanos()
        var list = (bindings[user] ?? []).filter { $0.expiresAt > now }
        if let i = list.firstIndex(where: { binding.instance != nil ? $0.instance == binding.instance
                                                                    : $0.contact == binding.contact }) {
            list[i] = binding
        } else {
            list.append(binding)
        }
        bindings[user] = list
    }

    /// Whether the REGISTER answers one of this proxy's challenges with the right digest for `user` (no qop, as
    /// the challenge offers none: MD5(HA1:nonce:HA2) over the Request-URI).
    func authorized(_ request: SIPMessage, user: String) -> Bool {
        guard let value = request.header(.authorization), let presented = DigestChallenge(value),
              presented.realm == configuration.realm, nonces.contains(presented.nonce) else { return false }
        let expected = DigestCredentials(username: user, password: configuration.password)
            .response(to: DigestChallenge(realm: presented.realm, nonce: presented.nonce), method: "REGISTER",
                      uri: request.requestURI ?? "", nonceCount: 0, cnonce: "")
        return value.contains("response=\"\(expected)\"")
    }

    /// Forgets every binding, as a registrar keeping them in memory does when it restarts (Kamailio's default).
    public func forgetBindings() { bindings.removeAll() }
}
