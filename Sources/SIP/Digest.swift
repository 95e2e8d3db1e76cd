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

    /// Parses a header value; nil unless it is a Digest challenge with a realm and a nonce.
    public init?(_ value: String) {
        let text = value[...].trimmingSpaces
        guard text.utf8.count > 7, asciiCaseEqual(text.prefix(6), "Digest"),
              text.utf8.dropFirst(6).first == 32 else { return nil }
        let fields = Self.fields(text.dropFirst(7))
        guard let realm = fields["realm"], let nonce = fields["nonce"] else { return nil }
        self.realm = realm
        self.nonce = nonce
        opaque = fields["opaque"]
        algorithm = fields["algorithm"] ?? "MD5"
        stale = fields["stale"].map { asciiCaseEqual($0, "true") } ?? false
        // qop may list several options ("auth,auth-int"): take auth when offered.
        qop = fields["qop"].flatMap { list in
            list.split(separator: ",").contains { asciiCaseEqual($0[...].trimmingSpaces, "auth") } ? "auth" : nil
        }
    }

    /// `name=value` or `name="quoted, value"` pairs separated by commas; names lowercased.
    static func fields(_ text: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for part in SIPHeaderValues.split(String(text)) {
            let piece = part.trimmingSpaces
            guard let eq = piece.utf8.firstIndex(of: 0x3D) else { continue }
            let name = String(piece[..<eq].trimmingSpaces).lowercased()
            out[name] = String(piece[piece.utf8.index(after: eq)...].trimmingSpaces.trimmingQuotes)
        }
        return out
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
        let ha1 = MD5.hex("\(username):\(challenge.realm):\(password)")
        let ha2 = MD5.hex("\(method):\(uri)")
        if let qop = challenge.qop {
            return MD5.hex("\(ha1):\(challenge.nonce):\(Self.nc(nonceCount)):\(cnonce):\(qop):\(ha2)")
        }
        return MD5.hex("\(ha1):\(challenge.nonce):\(ha2)")
    }

    /// The `Authorization` / `Proxy-Authorization` value answering `challenge` for a request.
    public func authorization(for challenge: DigestChallenge, method: SIPMethod, uri: String, nonceCount: UInt32,
                              cnonce: String) -> String {
        let response = response(to: challenge, method: method.rawValue, uri: uri, nonceCount: nonceCount,
                                cnonce: cnonce)
        var value = "Digest username=\"\(username)\", realm=\"\(challenge.realm)\", nonce=\"\(challenge.nonce)\", "
            + "uri=\"\(uri)\", response=\"\(response)\", algorithm=MD5"
        if let qop = challenge.qop {
            value += ", qop=\(qop), nc=\(Self.nc(nonceCount)), cnonce=\"\(cnonce)\""
        }
        if let opaque = challenge.opaque { value += ", opaque=\"\(opaque)\"" }
        return value
    }

    /// The nonce count as eight lowercase hex digits.
    static func nc(_ count: UInt32) -> String {
        let hex = String(count, radix: 16)
        return String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }
}
