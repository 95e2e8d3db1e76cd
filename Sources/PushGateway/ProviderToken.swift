import Foundation

/// The JWT provider token APNs requires with token-based auth: `bearer <header>.<claims>.<signature>`,
/// ES256, a 10-character `kid` and `iss`, and an `iat` no older than one hour.
public enum ProviderToken {
    public static let maxAgeSeconds: Int64 = 3600

    /// Nil when the token is acceptable; otherwise the rejection APNs would send.
    public static func check(_ authorization: String, nowEpochSeconds: Int64) -> APNsRejection? {
        guard authorization.hasPrefix("bearer ") || authorization.hasPrefix("Bearer ") else {
            return APNsRejection(.invalidProviderToken, detail: "authorization must be 'bearer <JWT>'")
        }
        let parts = authorization.dropFirst(7).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let header = decodeJSON(parts[0]), let claims = decodeJSON(parts[1]), !parts[2].isEmpty else {
            return APNsRejection(.invalidProviderToken, detail: "not a JWT of three base64url parts")
        }
        guard header["alg"] as? String == "ES256" else {
            return APNsRejection(.invalidProviderToken, detail: "alg must be ES256")
        }
        guard let kid = header["kid"] as? String, kid.count == 10 else {
            return APNsRejection(.invalidProviderToken, detail: "kid must be a 10-character key id")
        }
        guard let iss = claims["iss"] as? String, iss.count == 10 else {
            return APNsRejection(.invalidProviderToken, detail: "iss must be a 10-character team id")
        }
        guard let iat = (claims["iat"] as? NSNumber)?.int64Value else {
            return APNsRejection(.invalidProviderToken, detail: "iat is missing")
        }
        if nowEpochSeconds - iat > maxAgeSeconds {
            return APNsRejection(.expiredProviderToken, detail: "iat is \(nowEpochSeconds - iat) s old")
        }
        return nil
    }

    static func decodeJSON(_ part: Substring) -> [String: Any]? {
        guard let data = base64URLDecode(part) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    public static func base64URLDecode(_ text: Substring) -> Data? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s)
    }

    public static func base64URLEncode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
