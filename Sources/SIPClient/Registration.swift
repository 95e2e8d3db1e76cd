import SIP

/// The agent's binding at its registrar: the REGISTER Call-ID and CSeq it keeps across refreshes (§10.2.4), the
/// one in flight, and when the next refresh is due.
struct Registration {
    var callID: String?
    var fromTag: String?
    var cseq: UInt32 = 0
    /// The branch of the REGISTER awaiting its final response.
    var inFlight: String?
    /// Whether the REGISTER in flight already answers a challenge (a second 401 then fails).
    var answeredChallenge = false
    var refreshAt: UInt64?
    var granted: Int?
}

extension SIPUserAgent {
    /// Sends a REGISTER (a refresh keeps Call-ID and raises CSeq); `.registered` or `.registrationFailed` follows.
    /// Refreshes by itself at 80 % of the granted lifetime.
    public func register(now: UInt64) {
        sendRegister(challenge: nil, now: now)
    }

    func sendRegister(challenge: (DigestChallenge, proxy: Bool)?, now: UInt64) {
        if registration.callID == nil {
            registration.callID = token() + "@" + localHost
            registration.fromTag = token()
        }
        registration.cseq += 1
        let branch = newBranch()
        let uri = "sip:\(account.domain)"
        var request = SIPMessage.request(.register, uri: uri)
        request.addHeader(.via, via(branch: branch))
        request.addHeader(.maxForwards, "70")
        request.addHeader(.from, "<\(account.addressOfRecord)>;tag=\(registration.fromTag ?? "")")
        request.addHeader(.to, "<\(account.addressOfRecord)>")
        request.addHeader(.callID, registration.callID ?? "")
        request.addHeader(.cseq, SIPCSeq(registration.cseq, .register).text)
        request.addHeader(.contact, "<\(contactURI)>")
        request.addHeader(.expires, String(account.expires))
        if let (challenge, proxy) = challenge {
            ids.nonceCount += 1
            let value = DigestCredentials(username: account.user, password: account.password)
                .authorization(for: challenge, method: .register, uri: uri, nonceCount: ids.nonceCount, cnonce: token())
            request.addHeader(proxy ? .proxyAuthorization : .authorization, value)
        }
        registration.answeredChallenge = challenge != nil
        registration.inFlight = branch
        startClient(request, now: now)
    }

    func registerResponse(_ response: SIPMessage, status: Int, now: UInt64) {
        guard status >= 200 else { return }
        registration.inFlight = nil
        if status == 401 || status == 407, !registration.answeredChallenge,
           let value = response.header(status == 401 ? .wwwAuthenticate : .proxyAuthenticate),
           let challenge = DigestChallenge(value), challenge.isSupported {
            sendRegister(challenge: (challenge, status == 407), now: now)
            return
        }
        guard status / 100 == 2 else {
            events.append(.registrationFailed(status: status))
            return
        }
        let mine = response.contacts.first { $0.uri.hasPrefix("sip:\(account.user)@\(localHost):\(localPort)") }
        let granted = mine?.parameters["expires"].flatMap { Int($0) }
            ?? response.header(.expires).flatMap { Int($0) } ?? account.expires
        registration.granted = granted
        registration.refreshAt = granted > 0 ? now + UInt64(granted) * 800_000_000 : nil
        events.append(.registered(expires: granted))
    }

    /// When the next refresh REGISTER goes out, nil when none is planned.
    public var registrationRefreshAt: UInt64? { registration.refreshAt }
}
