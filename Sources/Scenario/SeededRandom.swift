/// A small, fast, seedable generator (xoshiro256**, seeded through splitmix64) so runs are reproducible.
///
/// The system generator cannot be seeded, and a run that cannot be replayed cannot be debugged. Independent
/// streams (`init(seed:stream:)`) let each arrival or worker draw its own numbers, so the values an arrival gets
/// do not depend on which worker or shard happens to run it.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    /// Seeds the state with four splitmix64 outputs, as the xoshiro authors recommend.
    public init(seed: UInt64) {
        var mixer = seed
        s0 = Self.splitmix64(&mixer)
        s1 = Self.splitmix64(&mixer)
        s2 = Self.splitmix64(&mixer)
        s3 = Self.splitmix64(&mixer)
    }

    /// A generator for one stream of a seed. Distinct streams of one seed start from distinct splitmix64 states
    /// (the derivation is a bijection in `stream`), so their sequences are independent for practical purposes.
    public init(seed: UInt64, stream: UInt64) {
        var mixer = Self.mix(Self.mix(seed ^ 0x6A09_E667_F3BC_C909) ^ stream)
        self.init(seed: Self.splitmix64(&mixer))
    }

    public mutating func next() -> UInt64 {
        let result = rotate(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotate(s3, 45)
        return result
    }

    /// A uniform double in [0, 1) with 53 random bits.
    public mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// A uniform double in (0, 1], safe to take the logarithm of.
    public mutating func nextOpenUnit() -> Double {
        Double((next() >> 11) + 1) * 0x1p-53
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }

    /// One step of splitmix64: advance the state by the golden gamma and mix it.
    static func splitmix64(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return mix(state)
    }

    /// splitmix64's finaliser, a bijection on UInt64.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
