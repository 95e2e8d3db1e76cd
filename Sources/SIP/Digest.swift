import Synchronization

/// A `WWW-Authenticate` / `Proxy-Authenticate: Digest …` challenge (RFC 2617 §3.2.1, RFC 7616 §3.3), MD5 only.
public struct DigestChallenge: Sendable, Equatable {
    public var realm: String
    public var nonce: String
    public var opaque: String?
    /// `auth` when the server offers it (then the answer carries qop, nc and cnonce); nil for RFC 2069 style.
    public var qop: String?
    public var algorithm: String
    public var stale: Bool

    public init(realm: String, nonce: String, opaque: String? = nil, qop: String? = nil, algorithm: String = "MD5",
                stale: Bool = false) {
        self.realm = realm
        self.nonce = nonce
        self.opaque = opaque
        self.qop = qop
        self.algorithm = algorithm
        self.stale = stale
    }

    /// Parses a header value; nil unless it is a Digest challenge with a realm and a nonce. Read over the value's
    /// bytes into the six fields an answer uses (names compared without case, the last of a name counting, as the
    /// dictionary of every field this once built had it): ~42,000 instructions a challenge before, a wake's
    /// REGISTER answers one on every wake of a sleeping device (issue 33).
    public init?(_ value: String) {
        guard let read = ValueBytes.with(value, { Self.read($0, 0, $0.count) }) else { return nil }
        self = read
    }

    /// `init?(_:)` over the value in `b[lo..<hi]`: `SIPMessage.digestChallenge` reads it where the 401 holds it,
    /// without the value's `String` first (issue 33: a wake's REGISTER meets one challenge on every wake).
    static func read(_ b: ValueBytes.Bytes, _ from: Int, _ to: Int) -> DigestChallenge? {
        let (lo, hi) = ValueBytes.trim(b, from, to)
        guard hi - lo > 7, ValueBytes.equals(b, lo, lo + 6, Name.bytes("Digest")), b[lo + 6] == 32 else { return nil }
        var found = [(Int, Int)?](repeating: nil, count: Name.fields.count)
        var start = lo + 7
        while start <= hi {
            let end = ValueBytes.firstComma(b, start, hi)
            let (plo, phi) = ValueBytes.trim(b, start, end)
            let eq = ValueBytes.find(0x3D, b, plo, phi)
            if eq < phi {
                let (nlo, nhi) = ValueBytes.trim(b, plo, eq)
                if let k = Name.fields.firstIndex(where: { ValueBytes.equals(b, nlo, nhi, Name.bytes($0)) }) {
                    var (vlo, vhi) = ValueBytes.trim(b, eq + 1, phi)
                    if vlo < vhi, b[vlo] == 0x22 { vlo += 1 }
                    if vlo < vhi, b[vhi - 1] == 0x22 { vhi -= 1 }
                    found[k] = (vlo, vhi)
                }
            }
            start = end + 1
        }
        func text(_ k: Int) -> String? { found[k].map { ValueBytes.string(b, $0.0, $0.1) } }
        guard let realm = text(0), let nonce = text(1) else { return nil }
        let stale = found[4].map { ValueBytes.equals(b, $0.0, $0.1, Name.bytes("true")) } ?? false
        // qop may list several options ("auth,auth-int"): take auth when offered.
        let qop = found[5].flatMap { offersAuth(b, $0.0, $0.1) ? "auth" : nil }
        return DigestChallenge(realm: realm, nonce: nonce, opaque: text(2), qop: qop,
                               algorithm: text(3) ?? "MD5", stale: stale)
    }

    /// Whether the comma-separated list in `lo..<hi` names `auth`.
    private static func offersAuth(_ b: ValueBytes.Bytes, _ lo: Int, _ hi: Int) -> Bool {
        var start = lo
        while start <= hi {
            let end = ValueBytes.find(0x2C, b, start, hi)
            let (plo, phi) = ValueBytes.trim(b, start, end)
            if ValueBytes.equals(b, plo, phi, Name.bytes("auth")) { return true }
            start = end + 1
        }
        return false
    }

    /// The field names a challenge is read for, in `read`'s order.
    private enum Name {
        static let fields: [StaticString] = ["realm", "nonce", "opaque", "algorithm", "stale", "qop"]

        static func bytes(_ name: StaticString) -> ValueBytes.Bytes {
            ValueBytes.Bytes(start: name.utf8Start, count: name.utf8CodeUnitCount)
        }
    }

    /// Whether this end can answer it (MD5 only; `MD5-sess` and SHA-256 are not implemented).
    public var isSupported: Bool { asciiCaseEqual(algorithm, "MD5") }
}

/// The credentials a UA answers digest challenges with, and the answer itself.
public struct DigestCredentials: Sendable, Equatable {
    public var username: String
    public var password: String

    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    /// The `response` value (RFC 2617 §3.2.2.1): MD5(HA1:nonce:nc:cnonce:qop:HA2) with qop, else MD5(HA1:nonce:HA2).
    public func response(to challenge: DigestChallenge, method: String, uri: String, nonceCount: UInt32,
                         cnonce: String) -> String {
        var out: [UInt8] = []
        appendResponse(to: challenge, method: method, uri: uri, nonceCount: nonceCount, cnonce: cnonce, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `response`'s 32 hex digits appended to `out`. The three texts hashed are laid out as bytes in one buffer
    /// and each digest's hex written into the next text: the `String` interpolations and the hex `String`s this
    /// once made cost ~66,000 instructions per answer, one answer on every wake of a sleeping device (issue 33).
    /// `memo`: HA1 and HA2 kept from the last answer with these credentials, reused when realm, method and URI are
    /// the same (then the bytes are the same).
    func appendResponse(to challenge: DigestChallenge, method: String, uri: String, nonceCount: UInt32,
                        cnonce: String, memo: Memo? = nil, into out: inout [UInt8]) {
        var text: [UInt8] = []
        text.reserveCapacity(160 + challenge.nonce.utf8.count + cnonce.utf8.count + uri.utf8.count)
        let ha1: [UInt8], ha2: [UInt8]
        if let memo, let kept = memo.ha1(username, password, challenge.realm) {
            ha1 = kept
        } else {
            text.appendUTF8(username); text.append(0x3A); text.appendUTF8(challenge.realm); text.append(0x3A)
            text.appendUTF8(password)
            ha1 = Self.hex(of: text)
            memo?.keep(ha1: ha1, username, password, challenge.realm)
            text.removeAll(keepingCapacity: true)
        }
        if let memo, let kept = memo.ha2(method, uri) {
            ha2 = kept
        } else {
            text.appendUTF8(method); text.append(0x3A); text.appendUTF8(uri)
            ha2 = Self.hex(of: text)
            memo?.keep(ha2: ha2, method, uri)
            text.removeAll(keepingCapacity: true)
        }
        text.append(contentsOf: ha1); text.append(0x3A); text.appendUTF8(challenge.nonce); text.append(0x3A)
        if let qop = challenge.qop {
            Self.appendNC(nonceCount, to: &text); text.append(0x3A); text.appendUTF8(cnonce); text.append(0x3A)
            text.appendUTF8(qop); text.append(0x3A)
        }
        text.append(contentsOf: ha2)
        MD5.appendHex(of: text, to: &out)
    }

    private static func hex(of text: [UInt8]) -> [UInt8] {
        var hex: [UInt8] = []
        hex.reserveCapacity(32)
        MD5.appendHex(of: text, to: &hex)
        return hex
    }

    /// The `Authorization` / `Proxy-Authorization` value answering `challenge` for a request; `memo` as in
    /// `appendResponse`.
    public func authorization(for challenge: DigestChallenge, method: SIPMethod, uri: String, nonceCount: UInt32,
                              cnonce: String, memo: Memo? = nil) -> String {
        var value: [UInt8] = []
        appendAuthorization(for: challenge, method: method, uri: uri, nonceCount: nonceCount, cnonce: cnonce,
                            memo: memo, into: &value)
        return String(decoding: value, as: UTF8.self)
    }

    /// The whole `Authorization` (`proxy`: `Proxy-Authorization`) line answering `challenge`, CR LF included, as
    /// `SIPMessage.addHeader` would lay out `authorization`'s value: appended to a request as bytes, with no
    /// `String` of the value between (issue 33: one answer on every wake of a sleeping device).
    public func authorizationLine(for challenge: DigestChallenge, proxy: Bool, method: SIPMethod, uri: String,
                                  nonceCount: UInt32, cnonce: String, memo: Memo? = nil) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(valueCapacity(challenge, uri: uri, cnonce: cnonce))  // one allocation for the line
        line.appendASCII(proxy ? "Proxy-Authorization: " : "Authorization: ")
        appendAuthorization(for: challenge, method: method, uri: uri, nonceCount: nonceCount, cnonce: cnonce,
                            memo: memo, into: &line)
        line.append(13)
        line.append(10)
        return line
    }

    /// At least the bytes of `authorization`'s value and the line's name and CR LF around it.
    private func valueCapacity(_ challenge: DigestChallenge, uri: String, cnonce: String) -> Int {
        216 + username.utf8.count + challenge.realm.utf8.count + challenge.nonce.utf8.count + 2 * uri.utf8.count
            + cnonce.utf8.count + (challenge.opaque?.utf8.count ?? 0)
    }

    /// `authorization`'s value appended to `value`.
    func appendAuthorization(for challenge: DigestChallenge, method: SIPMethod, uri: String, nonceCount: UInt32,
                             cnonce: String, memo: Memo?, into value: inout [UInt8]) {
        value.reserveCapacity(value.count + valueCapacity(challenge, uri: uri, cnonce: cnonce))
        value.appendASCII("Digest username=\""); value.appendUTF8(username)
        value.appendASCII("\", realm=\""); value.appendUTF8(challenge.realm)
        value.appendASCII("\", nonce=\""); value.appendUTF8(challenge.nonce)
        value.appendASCII("\", uri=\""); value.appendUTF8(uri)
        value.appendASCII("\", response=\"")
        appendResponse(to: challenge, method: method.rawValue, uri: uri, nonceCount: nonceCount, cnonce: cnonce,
                       memo: memo, into: &value)
        value.appendASCII("\", algorithm=MD5")
        if let qop = challenge.qop {
            value.appendASCII(", qop="); value.appendUTF8(qop)
            value.appendASCII(", nc="); Self.appendNC(nonceCount, to: &value)
            value.appendASCII(", cnonce=\""); value.appendUTF8(cnonce); value.append(0x22)
        }
        if let opaque = challenge.opaque {
            value.appendASCII(", opaque=\""); value.appendUTF8(opaque); value.append(0x22)
        }
    }

    /// HA1 (MD5 of username, realm, password) and HA2 (MD5 of method and URI) of the last answer, for a UA that
    /// answers many challenges with one credential: a sleeping device answers its registrar's 401 at every wake
    /// with the same user, realm, password, method (REGISTER) and URI, so two of the answer's three MD5s and their
    /// hex are the same each time (~10,000 instructions a wake call of ~21,000; issue 33). A phone that stores
    /// its credential as HA1 does the same. Each is kept with what it hashed and used only when all of it matches.
    /// Locked: an account is `Sendable` and its copies share the memo, so two threads may answer with it at once.
    public final class Memo: Sendable {
        private struct Kept {
            var ha1Key: (username: String, password: String, realm: String)?
            var ha1: [UInt8] = []
            var ha2Key: (method: String, uri: String)?
            var ha2: [UInt8] = []
        }
        private let kept = Mutex(Kept())

        public init() {}

        func ha1(_ username: String, _ password: String, _ realm: String) -> [UInt8]? {
            kept.withLock { kept in
                guard let key = kept.ha1Key, key.realm == realm, key.username == username, key.password == password
                else { return nil }
                return kept.ha1
            }
        }

        func ha2(_ method: String, _ uri: String) -> [UInt8]? {
            kept.withLock { kept in
                guard let key = kept.ha2Key, key.method == method, key.uri == uri else { return nil }
                return kept.ha2
            }
        }

        func keep(ha1: [UInt8], _ username: String, _ password: String, _ realm: String) {
            kept.withLock { kept in
                kept.ha1Key = (username, password, realm)
                kept.ha1 = ha1
            }
        }

        func keep(ha2: [UInt8], _ method: String, _ uri: String) {
            kept.withLock { kept in
                kept.ha2Key = (method, uri)
                kept.ha2 = ha2
            }
        }
    }

    /// The nonce count as eight lowercase hex digits.
    static func nc(_ count: UInt32) -> String {
        var out: [UInt8] = []
        appendNC(count, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `nc`'s eight digits appended to `out`.
    static func appendNC(_ count: UInt32, to out: inout [UInt8]) {
        for shift in stride(from: 28, through: 0, by: -4) {
            out.append(MD5.hexDigit(UInt8(truncatingIfNeeded: count >> UInt32(shift)) & 0xF))
        }
    }
}
