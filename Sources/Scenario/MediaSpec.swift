/// `media:`: RTP on a seeded share of SIP calls (issue 34, docs/MEDIA.md). Absent, no call carries media and a
/// run is what it was before media existed.
public struct MediaSpec: Sendable, Equatable {
    /// The share of calls that carry media, drawn per call from the scenario seed (both ends of a call agree).
    public var share: Double = 1
    /// Silence from the far end for longer than this after the answer (or mid-call) is one-way audio.
    public var oneWayAfterNanos: UInt64 = 1_000_000_000
    /// Where the real streams bind their RTP ports (even ports only); nil: ephemeral ports.
    public var ports: ClosedRange<Int>?

    public init(share: Double = 1, oneWayAfterNanos: UInt64 = 1_000_000_000, ports: ClosedRange<Int>? = nil) {
        self.share = share
        self.oneWayAfterNanos = oneWayAfterNanos
        self.ports = ports
    }

    /// Whether call `call` of a run seeded `seed` carries media: a SplitMix64 draw on the pair, so the choice is
    /// the same at both ends, on every replay, and independent of the order calls start in.
    public func carries(call: Int, seed: UInt64) -> Bool {
        if share >= 1 { return true }
        if share <= 0 { return false }
        var z = seed ^ (UInt64(truncatingIfNeeded: call) &* 0x9E37_79B9_7F4A_7C15) &+ 0x6D65_6469_61
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53) < share
    }
}
