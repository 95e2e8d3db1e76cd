/// SplitMix64: a small, fast, seedable generator. Every random choice the proxy makes comes from one of these,
/// derived from the proxy seed, the connection number and the toxic's name — never from the clock.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one purpose, mixed from several keys so that neighbouring keys give unrelated streams.
    public init(_ keys: UInt64...) {
        var s: UInt64 = 0x243F_6A88_85A3_08D3
        for key in keys { s = SeededRandom.mix(s ^ key) }
        state = s
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SeededRandom.mix(state)
    }

    /// Uniform in [0, 1).
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in [-spread, +spread].
    public mutating func nextSigned(_ spread: Double) -> Double { spread == 0 ? 0 : (nextUnit() * 2 - 1) * spread }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// FNV-1a of a string: a hash that is the same in every process (Swift's `hashValue` is not).
    static func stableHash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return h
    }
}

/// Whether a toxic acts on a connection: the decision callstorm can reproduce from the seed alone.
public enum ToxicDecision {
    /// True when the toxic named `toxic` with probability `toxicity` applies to connection number `connection`
    /// (1 for the first accepted) of a proxy seeded with `seed`. Toxicity 0 never applies, 1 always does.
    public static func applies(seed: UInt64, connection: UInt64, toxic: String, toxicity: Double) -> Bool {
        if toxicity <= 0 { return false }
        if toxicity >= 1 { return true }
        var random = SeededRandom(seed, connection, SeededRandom.stableHash(toxic), 0xD0)
        return random.nextUnit() < toxicity
    }
}
