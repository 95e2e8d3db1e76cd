import SIP

/// One agent's registration client (RFC 3261 §10.2; PJSIP's `sip_reg.c`, libre's `sipreg`): the REGISTER it
/// sends, the digest answer to a challenge (one per REGISTER), the refresh at 80 % of the granted lifetime with
/// the same Call-ID, From tag and a rising CSeq (§10.2.4), and the RFC 8599 push parameters its Contact carries
/// (`SIPAccount.push`, through the agent's `SIPLocalHeaders`).
final class RegistrationClient {
    private let account: SIPAccount
    private let ids: SIPIdentifiers
    /// The Call-ID its REGISTERs carry (kept across refreshes), nil before the first.
    private(set) var callID: String?
    private var fromTag: String?
    private var cseq: UInt32 = 0
    /// The branch of the REGISTER awaiting its final response.
    private(set) var inFlight: String?
    /// Whether the REGISTER in flight already answers a challenge (a second 401 then fails).
    private var answeredChallenge = false
    /// When the next refresh goes out, nil when none is planned.
    private(set) var refreshAt: UInt64?
    /// The lifetime the registrar granted last, seconds.
    private(set) var granted: Int?

    init(account: SIPAccount, ids: SIPIdentifiers) {
        self.account = account
        self.ids = ids
    }

    /// Back to a new client's state (a sleeping device's agent, `SIPUserAgent.sleep`): its next REGISTER starts a
    /// new registration, with a new Call-ID and From tag and CSeq 1, as a woken phone's does (RFC 8599).
    func restart() {
        callID = nil
        fromTag = nil
        cseq = 0
        inFlight = nil
        answeredChallenge = false
        refreshAt = nil
        granted = nil
    }

    /// Sends a REGISTER (a refresh keeps Call-ID and raises CSeq); `.registered` or `.registrationFailed` follows.
    func register(now: UInt64, core: some SIPCore) {
        send(challenge: nil, now: now, core: core)
    }

    /// Sends the refresh when it is due at `now`.
    func advance(to now: UInt64, core: some SIPCore) {
        guard let refreshAt, refreshAt <= now else { return }
        self.refreshAt = nil
        register(now: now, core: core)
    }

    private func send(challenge: (challenge: DigestChallenge, proxy: Bool)?, now: UInt64, core: some SIPCore) {
        if callID == nil {
            callID = ids.token() + "@" + core.local.host
            fromTag = ids.token()
        }
        cseq += 1
        let branch = ids.branch()
        let uri = account.registrarURI
        // The Contact's RFC 5626 binding parameters are in the agent's REGISTER head (`SIPAccount.localHeaders`).
        var request = core.local.register(uri, callID: callID ?? "", tag: fromTag ?? "", branch: branch, cseq: cseq,
                                          expires: account.expires)
        if let challenge { account.authorize(&request, answering: challenge, uri: uri, ids: ids) }
        answeredChallenge = challenge != nil
        inFlight = branch
        core.startClient(request, now: now)
    }

    /// A response to a REGISTER: a challenge answered once, a grant noted with its refresh, a failure reported.
    func receive(_ response: SIPMessage, now: UInt64, core: some SIPCore) {
        guard let status = response.status, status >= 200 else { return }
        inFlight = nil
        if !answeredChallenge, let challenge = response.digestChallenge {
            send(challenge: challenge, now: now, core: core)
            return
        }
        guard status / 100 == 2 else {
            core.report(.registrationFailed(status: status))
            return
        }
        let granted = core.local.bindingExpires(in: response)
            ?? response.header(.expires).flatMap { Int($0) } ?? account.expires
        self.granted = granted
        refreshAt = granted > 0 ? now + UInt64(granted) * 800_000_000 : nil
        core.report(.registered(expires: granted))
    }

    /// The REGISTER's transaction ran out (Timer F): reported as a 408.
    func timedOut(core: some SIPCore) {
        inFlight = nil
        core.report(.registrationFailed(status: 408))
    }
}
