import Determinism

/// The seeded source of one agent's identifiers (Call-IDs, tags, branches, cnonces, media ports) and its digest
/// nonce count. One per agent, shared by its layers from their creation, so the draws come in the order the
/// messages are built whichever layer builds them: the same seed gives the same identifiers.
final class SIPIdentifiers {
    private var random: SeededRandom
    private var next: UInt64 = 0
    private var nonceCount: UInt32 = 0

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// A fresh token: 48 random bits and a counter, base 36.
    func token() -> String {
        next += 1
        return String(random.next() & 0xFFFF_FFFF_FFFF, radix: 36) + String(next, radix: 36)
    }

    /// A new top Via branch with RFC 3261's magic cookie.
    func branch() -> String { "z9hG4bK" + token() }

    /// An even RTP port in 40000–59998 for an SDP offer or answer.
    func mediaPort() -> Int { 40_000 + Int(random.next() % 10_000) * 2 }

    /// The nonce count of the next digest answer (one count for every challenge this agent answers).
    func nextNonceCount() -> UInt32 {
        nonceCount += 1
        return nonceCount
    }
}
