import Credentials
import Foundation

/// `callstorm provider-token`: prints an APNs provider token (an ES256 JWT) for a pusher callstorm does not
/// start, such as a Kamailio run by hand (`-A 'PUSH_JWT="<token>"'`). The key is named as the gateway's `--keys`
/// names it (`KEYID=FILE`); without one, a fresh key signs it, which a gateway holding no key accepts as any
/// well-formed token (docs/GATEWAY.md).
enum ProviderTokenCommand {
    static let help = """
        Usage: callstorm provider-token [--key KEYID=FILE] [--team TEAMID] [--issued-at EPOCH_SECONDS]

        Prints an APNs provider token (ES256 JWT: header alg ES256 and kid, claims iss and iat) on stdout, for an
        APNs client callstorm does not start: e.g. Kamailio's push route, -A 'PUSH_JWT="<token>"' (docs/SIP.md).
          --key        KEYID=FILE: the key id (10 characters, as Apple gives it) and the .p8 / PEM private key to
                       sign with; the gateway verifies it when started with the same --keys (or push.auth.keys).
                       Without it a fresh key signs with key id CALLSTORM1: a gateway holding no key accepts any
                       well-formed token
          --team       the team id in iss (10 characters; default CALLSTORMT); the gateway's --team when it has one
          --issued-at  iat (default now). Tokens older than an hour are refused (ExpiredProviderToken): make a
                       fresh one for each hour of a run
        """

    static func execute(_ args: [String]) throws(CLIError) -> ExitCode {
        if args.contains("--help") {
            print(help)
            return .passed
        }
        print(try token(args))
        return .passed
    }

    /// The token the arguments ask for.
    static func token(_ args: [String]) throws(CLIError) -> String {
        let parsed = try Arguments(args, valued: ["key", "team", "issued-at"], boolean: ["help"])
        guard parsed.positional.isEmpty else { throw .usage("provider-token takes no positional arguments") }
        let team = parsed.value("team") ?? EmbeddedServers.embeddedTeamID
        try requireTenCharacters(team, flag: "team", what: "team id")
        let signer = try signer(parsed.value("key"), team: team)
        let issuedAt: Int64
        if let text = parsed.value("issued-at") {
            guard let value = Int64(text), value > 0 else {
                throw .badValue(flag: "issued-at", value: text, expected: "seconds since 1970, like 1767225600")
            }
            issuedAt = value
        } else {
            issuedAt = Int64(Date().timeIntervalSince1970)
        }
        guard let token = signer.token(issuedAt: issuedAt) else {
            throw .badValue(flag: "key", value: parsed.value("key") ?? "", expected: "a private key (this one "
                + "can only verify)")
        }
        return token
    }

    /// The signer for `--key KEYID=FILE`, or a fresh key's.
    private static func signer(_ key: String?, team: String) throws(CLIError) -> ProviderTokenSigner {
        guard let key else {
            do {
                return ProviderTokenSigner(keyID: EmbeddedServers.embeddedKeyID, teamID: team,
                                           key: try ES256Key.generate())
            } catch {
                throw .harness("cannot make a signing key: \(error)")
            }
        }
        guard let equals = key.firstIndex(of: "="), equals != key.startIndex else {
            throw .badValue(flag: "key", value: key, expected: "KEYID=FILE, like ABCDE12345=AuthKey_ABCDE12345.p8")
        }
        let keyID = String(key[..<equals])
        let path = String(key[key.index(after: equals)...])
        try requireTenCharacters(keyID, flag: "key", what: "key id")
        do {
            return ProviderTokenSigner(keyID: keyID, teamID: team, key: try ES256Key(contentsOf: path))
        } catch {
            throw .badValue(flag: "key", value: key, expected: "a readable ES256 private key in PEM (.p8): "
                + error.description)
        }
    }

    /// APNs (and the gateway) refuse a `kid` or `iss` that is not 10 characters: InvalidProviderToken.
    private static func requireTenCharacters(_ value: String, flag: String, what: String) throws(CLIError) {
        guard value.count == 10 else {
            throw .badValue(flag: flag, value: value, expected: "a \(what) of 10 characters, as Apple gives it "
                + "(APNs answers InvalidProviderToken otherwise)")
        }
    }
}
