/// The codecs a callstorm stream sends: G.711 at 8 kHz in 20 ms packets (RFC 3551 §4.5.14, static payload
/// types), the two every SIP device in the project offers (`SDPSession.formats`).
public enum MediaCodec: UInt8, Sendable, CaseIterable {
    case pcmu = 0
    case pcma = 8

    public var payloadType: UInt8 { rawValue }
    /// RTP timestamp units per second (RFC 3551 Table 4).
    public static let clockRate = 8_000
    /// 20 ms of 8 kHz samples, one byte each: 160 bytes and 160 timestamp units per packet, 50 packets a second.
    public static let samplesPerPacket = 160
    public static let packetNanos: UInt64 = 20_000_000

    public init?(payloadType: Int) {
        guard let codec = MediaCodec(rawValue: UInt8(truncatingIfNeeded: payloadType)), payloadType < 128 else {
            return nil
        }
        self = codec
    }

    /// The byte a digital zero encodes to: what a silent packet is made of.
    public var silence: UInt8 { self == .pcmu ? 0xFF : 0xD5 }

    /// One 16-bit linear sample encoded with this codec's law.
    public func encode(_ sample: Int16) -> UInt8 {
        self == .pcmu ? Self.muLaw(sample) : Self.aLaw(sample)
    }

    /// G.711 μ-law: bias 132 added to the magnitude (clipped at 32635), a 3-bit segment (the highest set bit among
    /// bits 7...14) and 4 mantissa bits, sign in bit 7, all bits inverted on the line.
    static func muLaw(_ sample: Int16) -> UInt8 {
        var magnitude = Int(sample)
        let sign: Int = magnitude < 0 ? 0x80 : 0
        if magnitude < 0 { magnitude = -magnitude }
        magnitude = min(magnitude, 32_635) + 0x84
        var segment = 7
        while segment > 0, magnitude & (0x4000 >> (7 - segment)) == 0 { segment -= 1 }
        let mantissa = (magnitude >> (segment + 3)) & 0x0F
        return ~UInt8(sign | segment << 4 | mantissa)
    }

    /// G.711 A-law on the 13-bit magnitude: segment from the highest bit (segments 0 and 1 share a step), 4
    /// mantissa bits; even bits inverted on the line (XOR 0x55), sign bit set for positive samples.
    static func aLaw(_ sample: Int16) -> UInt8 {
        var value = Int(sample) >> 3
        let mask: UInt8
        if value >= 0 {
            mask = 0xD5
        } else {
            mask = 0x55
            value = -value - 1
        }
        var segment = 0
        while segment < 8 && value >= 0x20 << segment { segment += 1 }
        guard segment < 8 else { return 0x7F ^ mask }
        let mantissa = segment < 2 ? (value >> 1) & 0x0F : (value >> segment) & 0x0F
        return UInt8(segment << 4 | mantissa) ^ mask
    }
}
