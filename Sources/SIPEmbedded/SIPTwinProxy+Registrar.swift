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
        if let contact {
            let asked = contact.parameters["expires"].flatMap { Int($0) } ?? request.header(.expires).flatMap { Int($0) }
                ?? 600
            if asked == 0 {
                if bindings[user]?.contact == contact.uri { bindings[user] = nil }
            } else if let endpoint = Self.endpoint(of: contact.uri) {
                let seconds = min(max(asked, configuration.minExpires), configuration.maxExpires)
                bindings[user] = SIPTwinBinding(contact: contact.uri, endpoint: endpoint,
                                                expiresAt: now + UInt64(seconds) * 1_000_000_000,
                                                push: PushContactParameters(uri: contact.uri))
            }
        }
        var ok = request.response(200, toTag: token())
        if let binding = binding(of: user) {
            ok.addHeader(.contact, "<\(binding.contact)>;expires=\((binding.expiresAt - now) / 1_000_000_000)")
        }
        send(ok, over: from.transport, to: from)
        if contact != nil, binding(of: user) != nil { woke(user, now: now) }
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
