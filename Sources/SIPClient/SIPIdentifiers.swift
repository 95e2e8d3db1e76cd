import Determinism
import SIP

/// The seeded source of one agent's identifiers (Call-IDs, tags, branches, cnonces, media ports) and its digest
/// nonce count. One per agent, shared by its layers from their creation, so the draws come in the order the
/// messages are built whichever layer builds them: the same seed gives the same identifiers.
final class SIPIdentifiers {
    private var random: SeededRandom
    private var next: UInt64 = 0
    private var nonceCount: UInt32 = 0
    /// The Call-IDs and branches this agent made and received lately, handed back to the parser so that a
    /// received message reuses the agent's string instead of making one (`SIPStringCache`).
    let strings = SIPStringCache()

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// Draws from `seed` again as a new source of it would (the string cache kept): a sleeping device's agent woken.
    func restart(seed: UInt64) {
        random = SeededRandom(seed: seed)
        next = 0
        nonceCount = 0
    }

    /// A fresh token: 48 random bits and a counter, base 36.
    func token() -> String { token(after: "") }

    /// A new top Via branch with RFC 3261's magic cookie.
    func branch() -> String { token(after: "z9hG4bK") }

    /// `prefix` then a fresh token, written into one buffer: `prefix + String(bits, radix: 36) + String(next,
    /// radix: 36)` made three strings and joined them, for every branch and tag (issue 33).
    private func token(after prefix: StaticString) -> String {
        next += 1
        let bits = random.next() & 0xFFFF_FFFF_FFFF
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { out in
            var n = 0
            for k in 0..<prefix.utf8CodeUnitCount {
                out[n] = prefix.utf8Start[k]
                n += 1
            }
            Self.base36(bits, into: out, at: &n)
            Self.base36(next, into: out, at: &n)
            return String(decoding: UnsafeBufferPointer(rebasing: out[..<n]), as: UTF8.self)
        }
    }

    /// `String(value, radix: 36)`'s digits (lower case) written at `n`.
    private static func base36(_ value: UInt64, into out: UnsafeMutableBufferPointer<UInt8>, at n: inout Int) {
        let from = n
        var v = value
        repeat {
            let digit = UInt8(v % 36)
            out[n] = digit < 10 ? 0x30 + digit : 0x57 + digit
            n += 1
            v /= 36
        } while v > 0
        var lo = from, hi = n - 1
        while lo < hi {
            out.swapAt(lo, hi)
            lo += 1
            hi -= 1
        }
    }

    /// An even RTP port in 40000–59998 for an SDP offer or answer.
    func mediaPort() -> Int { 40_000 + Int(random.next() % 10_000) * 2 }

    /// The nonce count of the next digest answer (one count for every challenge this agent answers).
    func nextNonceCount() -> UInt32 {
        nonceCount += 1
        return nonceCount
    }
}
