/// How one stream sends and judges: its codec and pattern, its SSRC and random starting sequence and timestamp
/// (RFC 3550 §5.1 wants both random), the packet interval and the one-way-audio threshold.
public struct MediaStreamSettings: Sendable, Equatable {
    public var codec: MediaCodec
    public var pattern: MediaPayload.Pattern
    public var ssrc: UInt32
    public var initialSequence: UInt16
    public var initialTimestamp: UInt32
    public var intervalNanos: UInt64
    public var oneWayThresholdNanos: UInt64

    public init(codec: MediaCodec = .pcmu, pattern: MediaPayload.Pattern = .tone, ssrc: UInt32,
                initialSequence: UInt16 = 0, initialTimestamp: UInt32 = 0,
                intervalNanos: UInt64 = MediaCodec.packetNanos,
                oneWayThresholdNanos: UInt64 = OneWayAudioDetector.defaultThresholdNanos) {
        self.codec = codec
        self.pattern = pattern
        self.ssrc = ssrc
        self.initialSequence = initialSequence
        self.initialTimestamp = initialTimestamp
        self.intervalNanos = intervalNanos
        self.oneWayThresholdNanos = oneWayThresholdNanos
    }

    /// Settings whose SSRC, first sequence and first timestamp come from `seed` (the Driver derives one per
    /// stream from the scenario seed), by SplitMix64, so a run's streams are the same on every replay.
    public init(codec: MediaCodec = .pcmu, pattern: MediaPayload.Pattern = .tone, seed: UInt64,
                oneWayThresholdNanos: UInt64 = OneWayAudioDetector.defaultThresholdNanos) {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let a = next()
        let b = next()
        self.init(codec: codec, pattern: pattern, ssrc: UInt32(truncatingIfNeeded: a),
                  initialSequence: UInt16(truncatingIfNeeded: a >> 32), initialTimestamp: UInt32(truncatingIfNeeded: b),
                  oneWayThresholdNanos: oneWayThresholdNanos)
    }
}
