import Credentials
import Foundation

/// The keys a gateway checks provider-token signatures with, as the scenario's `push.auth` gives them.
public struct ProviderKeys: Sendable {
    /// The team id every token's `iss` must name; nil accepts any well-formed team id.
    public var teamID: String?
    /// Public (or private) keys by their 10-character key id.
    public var keys: [String: ES256Key]

    public init(teamID: String? = nil, keys: [String: ES256Key]) {
        self.teamID = teamID
        self.keys = keys
    }
}

/// A provider token that passed every check, with the claims the gateway keeps per connection.
public struct VerifiedProviderToken: Sendable, Equatable {
    public var keyID: String
    public var teamID: String
    public var issuedAt: Int64
    /// How the token wrote `iat`: APNs accepts each form, and the gateway counts the non-integer ones.
    public var issuedAtForm: IssuedAtForm = .integer
}

/// The JSON forms of a provider token's `iat` that APNs accepts: a number (kalyke-apns and most clients), a
/// float (pyapns-client's `time.time()`), a decimal string (kalyke-apns 1.5's `str(int(...))`).
public enum IssuedAtForm: String, Sendable {
    case integer
    case float
    case string
}

/// The JWT provider token APNs requires with token-based auth: `bearer <header>.<claims>.<signature>`,
/// ES256, a 10-character `kid` and `iss`, an `iat` no older than one hour, and — when keys are configured —
/// a signature that verifies under the key named by `kid`.
public enum ProviderToken {
    public static let maxAgeSeconds: Int64 = 3600
    /// APNs refuses a new token on one connection sooner than this after the previous one.
    public static let minRefreshSeconds: Int64 = 20 * 60

    /// Nil when the token is acceptable; otherwise the rejection APNs would send.
    public static func check(_ authorization: String, nowEpochSeconds: Int64,
                             keys: ProviderKeys? = nil) -> APNsRejection? {
        switch verify(authorization, nowEpochSeconds: nowEpochSeconds, keys: keys) {
        case .success: return nil
        case .failure(let rejection): return rejection
        }
    }

    /// Parses and checks `authorization`; the verified claims or the rejection APNs would send.
    public static func verify(_ authorization: String, nowEpochSeconds: Int64,
                              keys: ProviderKeys? = nil) -> Result<VerifiedProviderToken, APNsRejection> {
        // The scheme is case-insensitive (RFC 9110), as APNs treats it.
        guard authorization.utf8.count > 7, authorization.prefix(7).lowercased() == "bearer " else {
            return .failure(APNsRejection(.invalidProviderToken, detail: "authorization must be 'bearer <JWT>'"))
        }
        let jwt = authorization.dropFirst(7)
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let header = decodeJSON(parts[0]), let claims = decodeJSON(parts[1]),
              let signature = Base64URL.decode(parts[2]), !signature.isEmpty else {
            return .failure(APNsRejection(.invalidProviderToken, detail: "not a JWT of three base64url parts"))
        }
        guard header["alg"] as? String == "ES256" else {
            return .failure(APNsRejection(.invalidProviderToken, detail: "alg must be ES256"))
        }
        guard let kid = header["kid"] as? String, kid.utf8.count == 10 else {
            return .failure(APNsRejection(.invalidProviderToken, detail: "kid must be a 10-character key id"))
        }
        guard let iss = claims["iss"] as? String, iss.utf8.count == 10 else {
            return .failure(APNsRejection(.invalidProviderToken, detail: "iss must be a 10-character team id"))
        }
        guard let (iat, form) = issuedAt(claims["iat"]) else {
            return .failure(APNsRejection(.invalidProviderToken, detail: "iat is missing or not a number"))
        }
        if let keys {
            guard let key = keys.keys[kid] else {
                return .failure(APNsRejection(.invalidProviderToken, detail: "no key with id \(kid) is configured"))
            }
            if let team = keys.teamID, team != iss {
                return .failure(APNsRejection(.unrelatedKeyIdInToken, detail: "key \(kid) belongs to team \(team), "
                    + "the token names \(iss)"))
            }
            let signingInput = Array(jwt[..<parts[2].startIndex].dropLast().utf8)
            guard signature.count == 64, key.verify(signingInput, signature: signature) else {
                return .failure(APNsRejection(.invalidProviderToken, detail: "the ES256 signature does not verify "
                    + "under key \(kid)"))
            }
        }
        let verified = VerifiedProviderToken(keyID: kid, teamID: iss, issuedAt: iat, issuedAtForm: form)
        if let problem = ageProblem(verified, nowEpochSeconds: nowEpochSeconds) { return .failure(problem) }
        return .success(verified)
    }

    /// The checks of `verify` that depend on the time: a token whose signature verified once may be too old (or
    /// too far ahead) later.
    static func ageProblem(_ token: VerifiedProviderToken, nowEpochSeconds: Int64) -> APNsRejection? {
        let iat = token.issuedAt
        if nowEpochSeconds - iat > maxAgeSeconds {
            return APNsRejection(.expiredProviderToken, detail: "iat is \(nowEpochSeconds - iat) s old")
        }
        if iat - nowEpochSeconds > maxAgeSeconds {
            return APNsRejection(.invalidProviderToken, detail: "iat is in the future")
        }
        return nil
    }

    /// `iat` in whole epoch seconds and the form it came in; nil when it is none APNs accepts (missing, a
    /// boolean, a string that is not a decimal number, a number out of range).
    static func issuedAt(_ value: Any?) -> (Int64, IssuedAtForm)? {
        func whole(_ real: Double) -> Int64? { real.isFinite && abs(real) < 1e15 ? Int64(real) : nil }
        if value is Bool { return nil }
        if let number = value as? Int { return (Int64(number), .integer) }
        if let real = value as? Double { return whole(real).map { ($0, .float) } }
        guard let text = value as? String, !text.isEmpty, text.utf8.count <= 32,
              text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") })
        else { return nil }
        if let number = Int64(text) { return (number, .string) }
        return Double(text).flatMap(whole).map { ($0, .string) }
    }

    static func decodeJSON(_ part: Substring) -> [String: Any]? {
        guard let bytes = Base64URL.decode(part) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    public static func base64URLDecode(_ text: Substring) -> Data? {
        Base64URL.decode(text).map { Data($0) }
    }

    public static func base64URLEncode(_ data: Data) -> String {
        Base64URL.encode([UInt8](data))
    }
}
