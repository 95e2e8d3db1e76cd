/// The seeded generator of callstorm: every random choice of a run comes from one of these, never from the clock
/// or the system generator, so a run replays from its seed.
///
/// Two sequences live in this one type because fixed-seed outputs must stay the same across releases: the plan
/// and the driver draw xoshiro256** seeded through SplitMix64 (`init(seed:)`, `init(seed:stream:)`), while the
/// fault proxy's toxics and the tests draw SplitMix64 itself (`init(splitMix:)`, `init(keys:)`). Both are cheap;
/// the branch in `next()` is constant for a generator's lifetime, so it predicts perfectly.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    private let isSplitMix: Bool

    /// xoshiro256**, its state seeded with four SplitMix64 outputs as the xoshiro authors recommend.
    public init(seed: UInt64) {
        var mixer = seed
        s0 = Self.splitmix64(&mixer)
        s1 = Self.splitmix64(&mixer)
        s2 = Self.splitmix64(&mixer)
        s3 = Self.splitmix64(&mixer)
        isSplitMix = false
    }

    /// A generator for one stream of a seed. Distinct streams of one seed start from distinct SplitMix64 states
    /// (the derivation is a bijection in `stream`), so their sequences are independent for practical purposes.
    public init(seed: UInt64, stream: UInt64) {
        var mixer = Self.mix(Self.mix(seed ^ 0x6A09_E667_F3BC_C909) ^ stream)
        self.init(seed: Self.splitmix64(&mixer))
    }

    /// SplitMix64 starting from `state`: the first value is `mix(state + gamma)`.
    public init(splitMix state: UInt64) {
        s0 = state
        s1 = 0
        s2 = 0
        s3 = 0
        isSplitMix = true
    }

    /// SplitMix64 for one purpose, its state mixed from several keys so that neighbouring keys give unrelated
    /// streams (the proxy keys a toxic's stream by seed, connection and the toxic's name).
    public init(keys: UInt64...) {
        var state: UInt64 = 0x243F_6A88_85A3_08D3
        for key in keys { state = Self.mix(state ^ key) }
        self.init(splitMix: state)
    }

    public mutating func next() -> UInt64 {
        if isSplitMix { return Self.splitmix64(&s0) }
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

    /// Uniform in [-spread, +spread].
    public mutating func nextSigned(_ spread: Double) -> Double {
        spread == 0 ? 0 : (nextUnit() * 2 - 1) * spread
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 {
        (x << k) | (x >> (64 - k))
    }

    /// The golden gamma SplitMix64 advances its state by; also a good odd multiplier for spreading indexes.
    public static let golden: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// One step of SplitMix64: advance the state by the golden gamma and mix it.
    public static func splitmix64(_ state: inout UInt64) -> UInt64 {
        state &+= golden
        return mix(state)
    }

    /// SplitMix64's finaliser, a bijection on UInt64.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// FNV-1a of a string: a hash that is the same in every process (Swift's `hashValue` is not), for keying
    /// streams by name.
    public static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }
}
