/// Makes APNs provider tokens: a JWT with header `{"alg":"ES256","kid":…}` and claims `{"iss":…,"iat":…}`,
/// signed ES256 with the team's key, as a production APNs client does.
public struct ProviderTokenSigner: Sendable {
    /// The 10-character key id Apple gave the key.
    public let keyID: String
    /// The 10-character team id.
    public let teamID: String
    public let key: ES256Key

    public init(keyID: String, teamID: String, key: ES256Key) {
        self.keyID = keyID
        self.teamID = teamID
        self.key = key
    }

    /// The token issued at `issuedAt` (epoch seconds), without the `bearer ` prefix. Nil when the key cannot sign.
    public func token(issuedAt: Int64) -> String? {
        let header = Base64URL.encode(Array("{\"alg\":\"ES256\",\"kid\":\"\(keyID)\"}".utf8))
        let claims = Base64URL.encode(Array("{\"iss\":\"\(teamID)\",\"iat\":\(issuedAt)}".utf8))
        let signingInput = header + "." + claims
        guard let signature = key.sign(Array(signingInput.utf8)) else { return nil }
        return signingInput + "." + Base64URL.encode(signature)
    }
}
