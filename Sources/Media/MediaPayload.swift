/// The audio callstorm sends: a steady tone or digital silence, with a signature at the front that lets the far
/// end tell its own stream apart (and a callstorm stream from anyone else's) and, when both ends share one clock,
/// read the one-way delay of each packet.
///
/// Signature (17 bytes, 2.1 ms of the 20 ms packet, heard as a click at most): `C` `S`, SSRC (4, big-endian),
/// sequence (2), the sender's send instant in nanoseconds on its monotonic clock (8), and a check byte (XOR of the
/// 16 before it) so a stray payload is rarely taken for one. The rest is a 500 Hz tone at about -12 dBFS (16
/// samples a period, so every packet carries whole periods and the same bytes) or the codec's silence byte.
public enum MediaPayload {
    public enum Pattern: Sendable, Equatable {
        case tone
        case silence
    }

    /// What a payload's signature says.
    public struct Signature: Sendable, Equatable {
        public var ssrc: UInt32
        public var sequence: UInt16
        public var sentNanos: UInt64

        public init(ssrc: UInt32, sequence: UInt16, sentNanos: UInt64) {
            self.ssrc = ssrc
            self.sequence = sequence
            self.sentNanos = sentNanos
        }
    }

    public static let signatureSize = 17
    private static let magic: (UInt8, UInt8) = (0x43, 0x53)

    private static let toneSamples: [Int16] = (0..<MediaCodec.samplesPerPacket).map { i in
        Int16((8_000.0 * sine(Double(i % 16) / 16.0)).rounded())
    }
    private static let tone: [MediaCodec: [UInt8]] = [
        .pcmu: toneSamples.map { MediaCodec.pcmu.encode($0) },
        .pcma: toneSamples.map { MediaCodec.pcma.encode($0) },
    ]

    /// sin(2πx) for x in [0, 1) from a 16-step table: exact at the 16 points the tone uses, no Foundation.
    private static func sine(_ x: Double) -> Double {
        let table: [Double] = [0, 0.38268343236508978, 0.70710678118654757, 0.92387953251128674, 1,
                               0.92387953251128674, 0.70710678118654757, 0.38268343236508978]
        let step = Int((x * 16).rounded()) % 16
        return step < 8 ? table[step] : -table[step - 8]
    }

    /// Appends one 20 ms payload (160 bytes) for packet `sequence` of stream `ssrc`, sent at `sentNanos`.
    public static func append(codec: MediaCodec, pattern: Pattern, ssrc: UInt32, sequence: UInt16,
                              sentNanos: UInt64, into out: inout [UInt8]) {
        let start = out.count
        out.append(magic.0)
        out.append(magic.1)
        appendBE32(&out, ssrc)
        appendBE16(&out, sequence)
        appendBE32(&out, UInt32(sentNanos >> 32))
        appendBE32(&out, UInt32(truncatingIfNeeded: sentNanos))
        var check: UInt8 = 0
        for i in start..<out.count { check ^= out[i] }
        out.append(check)
        switch pattern {
        case .tone: out.append(contentsOf: tone[codec]![signatureSize...])
        case .silence:
            out.append(contentsOf: repeatElement(codec.silence, count: MediaCodec.samplesPerPacket - signatureSize))
        }
    }

    /// The signature at the front of `payload`, or nil when it is not a callstorm payload.
    public static func signature(_ payload: UnsafeRawBufferPointer) -> Signature? {
        guard payload.count >= signatureSize, payload[0] == magic.0, payload[1] == magic.1 else { return nil }
        var check: UInt8 = 0
        for i in 0..<(signatureSize - 1) { check ^= payload[i] }
        guard check == payload[signatureSize - 1] else { return nil }
        return Signature(ssrc: be32(payload, 2), sequence: UInt16(be16(payload, 6)),
                         sentNanos: UInt64(be32(payload, 8)) << 32 | UInt64(be32(payload, 12)))
    }
}
