/// A W3C Trace Context trace id: 16 bytes, not all zero.
public struct TraceID: Sendable, Hashable {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low == 0 && high == 0 ? 1 : low
    }

    /// Big-endian, as the wire and the `traceparent` header spell it.
    public var bytes: [UInt8] { bigEndian(high) + bigEndian(low) }
    public var hex: String { hexString(high, 16) + hexString(low, 16) }
}

/// A W3C Trace Context span (parent) id: 8 bytes, not zero.
public struct SpanID: Sendable, Hashable {
    public let value: UInt64

    public init(_ value: UInt64) {
        self.value = value == 0 ? 1 : value
    }

    public var bytes: [UInt8] { bigEndian(value) }
    public var hex: String { hexString(value, 16) }
}

/// The ids of a traced call, drawn from the run's seed so the same call gets the same trace id in every run with
/// the same seed: a trace found in Tempo for run A names the call to look at in run B.
public enum TraceIDs {
    /// SplitMix64's finalizer: a bijection that spreads neighbouring inputs over the whole range.
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The trace of call `call` of worker `worker` in shard `shard` of a run seeded `seed`.
    public static func trace(seed: UInt64, shard: Int, worker: Int, call: Int) -> TraceID {
        let key = mix(seed ^ mix(UInt64(shard) << 40 ^ UInt64(worker) << 32 ^ UInt64(truncatingIfNeeded: call)))
        return TraceID(high: mix(key), low: mix(key ^ 0x5bd1_e995))
    }

    /// Span `n` of a trace: 0 is the call's root span, an action's is its action id + 1.
    public static func span(_ trace: TraceID, _ n: UInt64) -> SpanID {
        SpanID(mix(trace.low ^ n &* 0x2545_F491_4F6C_DD1D))
    }

    /// The W3C `traceparent` value of a sampled span: `00-<trace>-<span>-01`.
    public static func traceparent(_ trace: TraceID, _ span: SpanID) -> String {
        "00-\(trace.hex)-\(span.hex)-01"
    }
}

private func bigEndian(_ v: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: v >> UInt64(56 - 8 * $0)) }
}

private func hexString(_ v: UInt64, _ width: Int) -> String {
    let digits = String(v, radix: 16)
    return String(repeating: "0", count: width - digits.count) + digits
}
