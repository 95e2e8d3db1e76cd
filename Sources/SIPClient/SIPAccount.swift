import SIP

/// Who a user agent is at its registrar: the address of record, the digest credential, and the RFC 8599 push
/// parameters it registers when it may be suspended.
public struct SIPAccount: Sendable, Equatable {
    public var user: String
    /// The registrar's domain (the host part of the address of record and the REGISTER Request-URI).
    public var domain: String
    public var password: String
    /// Put in the Contact URI when set: a device that sleeps until a VoIP push wakes it.
    public var push: PushContactParameters?
    /// The registration lifetime asked for, seconds.
    public var expires: Int

    public init(user: String, domain: String, password: String, push: PushContactParameters? = nil,
                expires: Int = 600) {
        self.user = user
        self.domain = domain
        self.password = password
        self.push = push
        self.expires = expires
    }

    public var addressOfRecord: String { "sip:\(user)@\(domain)" }

    /// This account's own headers at `host:port` over `transport`, its push parameters in the Contact.
    func localHeaders(transport: SIPTransportKind, host: String, port: Int) -> SIPLocalHeaders {
        SIPLocalHeaders(user: user, domain: domain, transport: transport.rawValue, host: host, port: port,
                        contactParameters: push?.parameters ?? SIPParameters())
    }

    /// Adds the digest answer to `received` (Authorization, or Proxy-Authorization for a proxy's) to `request`,
    /// with the next nonce count and a fresh cnonce from `ids`.
    func authorize(_ request: inout SIPMessage, answering received: (challenge: DigestChallenge, proxy: Bool),
                   uri: String, ids: SIPIdentifiers) {
        let nonceCount = ids.nextNonceCount()
        let value = DigestCredentials(username: user, password: password)
            .authorization(for: received.challenge, method: request.method ?? .register, uri: uri,
                           nonceCount: nonceCount, cnonce: ids.token())
        request.addHeader(received.proxy ? .proxyAuthorization : .authorization, value)
    }
}

/// UDP, TCP or TLS (RFC 3261 §26: SIP over TLS on a TCP connection, `sip:` URIs with `;transport=tls`), as the
/// Via and Contact name it.
public enum SIPTransportKind: String, Sendable {
    case udp = "UDP"
    case tcp = "TCP"
    case tls = "TLS"

    /// A stream transport: one connection to the proxy, framing by Content-Length, no retransmission timers.
    public var isStream: Bool { self != .udp }

    var timers: SIPTimerValues { SIPTimerValues(reliable: isStream) }
}

/// What a user agent tells its owner, in the order it happened.
public enum SIPEvent: Sendable, Equatable {
    case registered(expires: Int)
    case registrationFailed(status: Int)
    /// A new INVITE for this agent; it has answered 100 (and 180 when `autoRing`).
    case incoming(call: String, from: String)
    /// A provisional response to this agent's INVITE (180 is the ringing the post-dial delay ends at).
    case progress(call: String, status: Int)
    /// The caller got 200 and sent ACK; the callee got the ACK.
    case answered(call: String)
    /// A re-INVITE took effect: `held` true after sendonly, false after sendrecv.
    case hold(call: String, held: Bool)
    case ended(call: String, reason: SIPEndReason)
    /// A final failure response to this agent's INVITE (or re-INVITE), or a transaction timeout (408).
    case failed(call: String, status: Int)
    /// A call this agent CANCELled, ended 487 (`.ended(.cancelled)`), can no longer be answered: 64*T1 passed with
    /// no 2xx crossing its CANCEL (one that does is ACKed and BYEd: `.answered`, then `.ended(.localBye)`).
    case settled(call: String)
    /// Its connection to the proxy failed before carrying any SIP, by `SIPCounters.transportFailures` cause
    /// (`tls_certificate`, `tls_handshake`): closed for good; what it had sent will not be answered.
    case transportFailed(cause: String)
}

public enum SIPEndReason: Sendable, Equatable {
    case localBye, remoteBye
    /// The caller's CANCEL took effect (487 at the caller; the callee saw CANCEL).
    case cancelled
    /// This agent declined (486 or 603).
    case declined(Int)
    /// No ACK came for the 200 (Timer L), or the BYE timed out.
    case timedOut
}
