import Locking
import struct Synchronization.Atomic

/// Provider-token state per connection, as APNs keeps it: the token in use, when it was first used, and its
/// claims, so a token is checked once per connection rather than once per push (its signature once while it
/// stays in `signedTokens`), and a connection that switches tokens more often than every 20 minutes gets
/// `TooManyProviderTokenUpdates`.
///
/// Sendable: the state sits in mutex-guarded shards keyed by connection id, so loops on different threads
/// rarely contend. Entries go when the server reports the connection closed.
final class ProviderTokenTracker: Sendable {
    private struct Entry {
        var token: String
        var claims: VerifiedProviderToken
        var since: Int64
    }

    private final class Shard: Sendable {
        let table = Mutex<[UInt64: Entry]>([:])
    }

    private static let shardCount = 16
    /// Tokens whose signature verified under `keys`, with their claims, across connections: the ECDSA check
    /// was about 2,600 instructions per push when ten connections each carried 500 pushes under one token
    /// (callgrind). Bounded; emptied when full (a provider refreshes its token every 20 to 60 minutes).
    private let signedTokens = Mutex<[String: VerifiedProviderToken]>([:])
    private static let signedTokenLimit = 64
    private let shards: [Shard]
    private let keys: ProviderKeys?
    let tokensVerified = Atomic<Int>(0)
    let tokenUpdates = Atomic<Int>(0)
    /// Verified tokens whose `iat` was a decimal string, and a float (APNs accepts both; counted so a user sees).
    let iatStrings = Atomic<Int>(0)
    let iatFloats = Atomic<Int>(0)

    init(keys: ProviderKeys?) {
        self.keys = keys
        shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    /// Nil when `authorization` may be used on `connection` now; otherwise APNs's rejection.
    func authorize(_ authorization: String, connection: UInt64, nowEpochSeconds: Int64) -> APNsRejection? {
        let shard = shards[Int(connection % UInt64(Self.shardCount))]
        let known = shard.table.withLock { $0[connection] }
        if let known, known.token == authorization {
            if nowEpochSeconds - known.claims.issuedAt > ProviderToken.maxAgeSeconds {
                return APNsRejection(.expiredProviderToken,
                                     detail: "iat is \(nowEpochSeconds - known.claims.issuedAt) s old")
            }
            return nil
        }
        // Verification (ECDSA) runs outside the lock; a token already verified on another connection is checked
        // again only for its age (the rest of `verify` is a pure function of the token and the keys).
        let claims: VerifiedProviderToken
        if let seen = signedTokens.withLock({ $0[authorization] }) {
            if let problem = ProviderToken.ageProblem(seen, nowEpochSeconds: nowEpochSeconds) { return problem }
            claims = seen
        } else {
            switch ProviderToken.verify(authorization, nowEpochSeconds: nowEpochSeconds, keys: keys) {
            case .failure(let rejection): return rejection
            case .success(let verified): claims = verified
            }
            signedTokens.withLock { table in
                if table.count >= Self.signedTokenLimit { table.removeAll() }
                table[authorization] = claims
            }
        }
        tokensVerified.add(1, ordering: .relaxed)
        switch claims.issuedAtForm {
        case .integer: break
        case .string: iatStrings.add(1, ordering: .relaxed)
        case .float: iatFloats.add(1, ordering: .relaxed)
        }
        return shard.table.withLock { table -> APNsRejection? in
            if let current = table[connection], current.token != authorization {
                let age = nowEpochSeconds - current.since
                if age < ProviderToken.minRefreshSeconds {
                    return APNsRejection(.tooManyProviderTokenUpdates,
                                         detail: "a new token \(age) s after the last one on this connection")
                }
                tokenUpdates.add(1, ordering: .relaxed)
            }
            if table[connection]?.token != authorization {
                table[connection] = Entry(token: authorization, claims: claims, since: nowEpochSeconds)
            }
            return nil
        }
    }

    func forget(_ connection: UInt64) {
        _ = shards[Int(connection % UInt64(Self.shardCount))].table.withLock { $0.removeValue(forKey: connection) }
    }
}
