import SIP

/// Who a user agent is at its registrar: the address of record, the digest credential, and the RFC 8599 push
/// parameters it registers when it may be suspended.
public struct SIPAccount: Sendable, Equatable {
    /// The fields in one box, copied on write: an agent's account is copied into the agent, its registration client
    /// and its sessions (four copies an agent opened, two agents a wake call), and with eight strings inline each
    /// copy retained and released eight objects; now one (issue 33).
    private final class Fields: @unchecked Sendable {
        var user, password: String
        var domain: String { didSet { registrar = "sip:" + domain } }
        /// `sip:<domain>`: every REGISTER's Request-URI and its digest answer's `uri`, made when the domain is set
        /// (a concatenation per REGISTER before, four a wake call; issue 33).
        private(set) var registrar: String
        var push: PushContactParameters?
        var expires: Int
        var instance: String?
        /// `;+sip.instance="<instance>"`, empty without one: made when the instance is set, not at every agent's
        /// opening (every wake of a sleeping device built it by interpolation, ~2,700 instructions; issue 33).
        var instanceParameter: String
        /// The digest answer's HA1 and HA2 from its last answer, shared by the account's copies: the Driver keeps a
        /// sleeping device's account across its wakes, so each wake's agent answers the 401 with one MD5 instead of
        /// three (`DigestCredentials.Memo`, which checks what they hashed). Not part of what the account is.
        let digestMemo: DigestCredentials.Memo

        init(user: String, domain: String, password: String, push: PushContactParameters?, expires: Int,
             instance: String?, memo: DigestCredentials.Memo = DigestCredentials.Memo()) {
            self.user = user
            self.domain = domain
            registrar = "sip:" + domain
            self.password = password
            self.push = push
            self.expires = expires
            self.instance = instance
            instanceParameter = Fields.instanceParameter(instance)
            digestMemo = memo
        }

        func copy() -> Fields {
            Fields(user: user, domain: domain, password: password, push: push, expires: expires, instance: instance,
                   memo: digestMemo)
        }

        static func instanceParameter(_ instance: String?) -> String {
            guard let instance else { return "" }
            var text = ";+sip.instance=\"<"
            text.reserveCapacity(text.utf8.count + instance.utf8.count + 2)
            text += instance
            text += ">\""
            return text
        }
    }

    private var fields: Fields

    /// The box, copied first when another account shares it.
    private mutating func unique() -> Fields {
        if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
        return fields
    }

    public var user: String {
        get { fields.user }
        set { unique().user = newValue }
    }
    /// The registrar's domain (the host part of the address of record and the REGISTER Request-URI).
    public var domain: String {
        get { fields.domain }
        set { unique().domain = newValue }
    }
    public var password: String {
        get { fields.password }
        set { unique().password = newValue }
    }
    /// Put in the Contact URI when set: a device that sleeps until a VoIP push wakes it.
    public var push: PushContactParameters? {
        get { fields.push }
        set { unique().push = newValue }
    }
    /// The registration lifetime asked for, seconds.
    public var expires: Int {
        get { fields.expires }
        set { unique().expires = newValue }
    }
    /// RFC 5626 §4.1 instance ID (`urn:uuid:…`), the same across every registration of one device (a wake's new
    /// socket too): its REGISTER's Contact carries `+sip.instance`, so a registrar keeping several bindings for
    /// the address of record (one user's several devices) replaces this device's own binding and no other.
    /// Nil: no instance (one binding per address of record, the contact alone names it).
    public var instance: String? {
        get { fields.instance }
        set {
            let fields = unique()
            fields.instance = newValue
            fields.instanceParameter = Fields.instanceParameter(newValue)
        }
    }

    public init(user: String, domain: String, password: String, push: PushContactParameters? = nil,
                expires: Int = 600, instance: String? = nil) {
        fields = Fields(user: user, domain: domain, password: password, push: push, expires: expires,
                        instance: instance)
    }

    /// A stable RFC 5626 instance ID for device `device` of a run seeded `seed`: a version-4-shaped UUID URN
    /// (RFC 4122 layout) from two FNV-1a hashes of both, so every run of one seed gives each device the same one.
    public static func instanceURN(device: String, seed: UInt64) -> String {
        func fnv(_ salt: UInt64) -> UInt64 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ salt
            for byte in device.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            for shift in stride(from: 0, to: 64, by: 8) {
                hash = (hash ^ ((seed >> UInt64(shift)) & 0xff)) &* 0x100_0000_01b3
            }
            return hash
        }
        let high = (fnv(1) & 0xffff_ffff_ffff_0fff) | 0x4000
        let low = (fnv(2) & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000
        // Written as bytes: `String(radix:)`, its padding and eight concatenations cost ~25,000 instructions, and
        // the Driver asks on every wake of a sleeping device (issue 33). Each group has exactly its digits.
        var out: [UInt8] = Array("urn:uuid:".utf8)
        out.reserveCapacity(45)
        func hex(_ value: UInt64, _ digits: Int) {
            for k in stride(from: digits - 1, through: 0, by: -1) {
                let nibble = UInt8(truncatingIfNeeded: value >> UInt64(4 * k)) & 0xF
                out.append(nibble < 10 ? 0x30 + nibble : 0x57 + nibble)
            }
        }
        hex(high >> 32, 8)
        out.append(0x2D)
        hex((high >> 16) & 0xffff, 4)
        out.append(0x2D)
        hex(high & 0xffff, 4)
        out.append(0x2D)
        hex(low >> 48, 4)
        out.append(0x2D)
        hex(low & 0xffff_ffff_ffff, 12)
        return String(decoding: out, as: UTF8.self)
    }

    /// The Contact header parameters of a REGISTER over `transport` (RFC 5626 §4.2): `+sip.instance` when the
    /// account has an instance, with `reg-id=1` on a connection-oriented transport (the flow is its connection; a
    /// UDP device sends no keep-alives, so it registers no flow, only its instance, as RFC 5627 §4.1 lets a UA
    /// do without outbound). Empty without an instance.
    func bindingParameters(stream: Bool) -> String {
        stream && instance != nil ? fields.instanceParameter + ";reg-id=1" : fields.instanceParameter
    }

    public var addressOfRecord: String { "sip:\(user)@\(domain)" }

    /// `sip:<domain>`, the registrar's URI (a REGISTER's Request-URI), kept with the account.
    var registrarURI: String { fields.registrar }

    public static func == (a: SIPAccount, b: SIPAccount) -> Bool {
        a.fields === b.fields
            || a.user == b.user && a.domain == b.domain && a.password == b.password && a.push == b.push
            && a.expires == b.expires && a.instance == b.instance
    }

    /// This account's own headers at `host:port` over `transport`, its push parameters in the Contact.
    /// `sentByHost`: the host Via and Contact name instead of `host` (a WebSocket agent's `….invalid`).
    /// `demux`: the agent's id on a shared socket (`SIPClientPool.socketsShared`), written as a `csdev` parameter in
    /// its Contact URI (the Request-URI of what the proxy sends it) and in its Via (returned in the responses).
    func localHeaders(transport: SIPTransportKind, host: String, port: Int, sentByHost: String? = nil,
                      demux: Int? = nil) -> SIPLocalHeaders {
        var contactParameters = push?.parameters ?? SIPParameters()
        if let demux { contactParameters.items.append((SharedDemux.parameter, String(demux))) }
        return SIPLocalHeaders(user: user, domain: domain, transport: transport.rawValue, host: host, port: port,
                               contactParameters: contactParameters, uriTransport: transport.uriTransport,
                               sentByHost: sentByHost, bindingParameters: bindingParameters(stream: transport.isStream),
                               viaParameters: demux.map { ";\(SharedDemux.parameter)=\($0)" } ?? "")
    }

    /// Adds the digest answer to `received` (Authorization, or Proxy-Authorization for a proxy's) to `request`,
    /// with the next nonce count and a fresh cnonce from `ids`.
    func authorize(_ request: inout SIPMessage, answering received: (challenge: DigestChallenge, proxy: Bool),
                   uri: String, ids: SIPIdentifiers) {
        let nonceCount = ids.nextNonceCount()
        request.appendLines(DigestCredentials(username: user, password: password)
            .authorizationLine(for: received.challenge, proxy: received.proxy, method: request.method ?? .register,
                               uri: uri, nonceCount: nonceCount, cnonce: ids.token(), memo: fields.digestMemo))
    }
}

/// UDP, TCP, TLS (RFC 3261 §26: SIP over TLS on a TCP connection, `sip:` URIs with `;transport=tls`), WS or WSS
/// (RFC 7118: SIP over WebSocket, Contact `;transport=ws`), as the Via and Contact name it.
public enum SIPTransportKind: String, Sendable {
    case udp = "UDP"
    case tcp = "TCP"
    case tls = "TLS"
    /// SIP over WebSocket (RFC 7118) on a TCP connection, and on a TLS one: one SIP message per WebSocket message.
    case ws = "WS"
    case wss = "WSS"

    /// A stream transport: one connection to the proxy, no retransmission timers (framing by Content-Length on
    /// TCP and TLS, by the WebSocket message on WS and WSS).
    public var isStream: Bool { self != .udp }

    /// Whether the connection is TLS (the handshake the pool drives before anything else).
    public var isSecure: Bool { self == .tls || self == .wss }

    /// Whether SIP rides in WebSocket messages after an HTTP Upgrade asking for the `sip` subprotocol.
    public var isWebSocket: Bool { self == .ws || self == .wss }

    /// The Contact URI's `transport=` value: RFC 7118 §5.2 defines `ws` for both WebSocket transports (a secure
    /// one is said by the URI scheme, and devices keep `sip:`, as over TLS).
    var uriTransport: String { isWebSocket ? "ws" : rawValue.lowercased() }

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
    /// (`tls_certificate`, `tls_handshake`, `ws_handshake` for a refused WebSocket Upgrade): closed for good; what
    /// it had sent will not be answered.
    case transportFailed(cause: String)
    /// Its TCP connection to the proxy completed (a stream transport's connect), at `at` on the pool's clock: the
    /// wake-up path's `wake.connect` ends here. Told before anything the agent sends on it is answered.
    case connected(at: UInt64)
    /// Its connection can carry SIP, at `at` on the pool's clock: the TLS handshake done (TLS), the WebSocket
    /// Upgrade answered 101 (WS, and WSS after its TLS handshake). Not told over UDP and TCP.
    case transportReady(at: UInt64)
    /// What happened to its flow (its connection to the proxy): a TLS handshake, and flow recovery after the
    /// connection broke (`SIPReconnectPolicy`, `reconnect` other than `none`).
    case flow(SIPFlowEvent)
}

/// A step of an agent's flow, told as it happens: a TLS handshake done, and the steps of flow recovery (RFC 5626
/// §4.4–4.5).
public enum SIPFlowEvent: Sendable, Equatable {
    /// A TLS handshake finished (tls, wss), resumed or full: the count `SIPCounters.tlsHandshakes` also keeps, told
    /// as it happens so the handshakes per second show (a storm's).
    case tlsHandshake(resumed: Bool)
    /// Its connection to the proxy broke (or was refused) and a recovery starts.
    case lost
    /// A new connection to the proxy was opened after the last one was lost (or refused).
    case reconnected
    /// The REGISTER on the new connection was answered 200, `afterNanos` after the connection was lost.
    case reregistered(afterNanos: UInt64)
    /// The REGISTER on the new connection failed with `status` (408: it timed out); another follows the back-off.
    case reregisterFailed(status: Int)
}

public enum SIPEndReason: Sendable, Equatable {
    case localBye, remoteBye
    /// The caller's CANCEL took effect (487 at the caller; the callee saw CANCEL).
    case cancelled
    /// The callee's CANCEL (or BYE) said, by RFC 3326 `Reason: SIP;cause=…`, that another device of the address
    /// of record took the call (cause 200) or declined it (600, 603): a forking proxy's CANCEL of this branch.
    case elsewhere(cause: Int)
    /// This agent declined (486 or 603).
    case declined(Int)
    /// No ACK came for the 200 (Timer L), or the BYE timed out.
    case timedOut
}
