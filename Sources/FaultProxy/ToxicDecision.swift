import Determinism

/// Whether a toxic acts on a connection: the decision callstorm can reproduce from the seed alone.
public enum ToxicDecision {
    /// True when the toxic named `toxic` with probability `toxicity` applies to connection number `connection`
    /// (1 for the first accepted) of a proxy seeded with `seed`. Toxicity 0 never applies, 1 always does.
    public static func applies(seed: UInt64, connection: UInt64, toxic: String, toxicity: Double) -> Bool {
        if toxicity <= 0 { return false }
        if toxicity >= 1 { return true }
        var random = SeededRandom(keys: seed, connection, SeededRandom.stableHash(toxic), 0xD0)
        return random.nextUnit() < toxicity
    }
}
