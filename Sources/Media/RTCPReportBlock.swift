/// One reception report block of an RTCP SR or RR (RFC 3550 §6.4.1): what a receiver says of one source.
public struct RTCPReportBlock: Sendable, Equatable {
    public static let size = 24

    /// The source this block is about.
    public var ssrc: UInt32
    /// Lost since the last report, as a fixed-point fraction of 256 (§6.4.1 "fraction lost").
    public var fractionLost: UInt8
    /// Cumulative packets lost: 24 bits, signed (duplicates can make it negative); clamped on write.
    public var cumulativeLost: Int32
    /// Cycles (high 16 bits) and the highest sequence received (low 16).
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in timestamp units (§6.4.1, A.8).
    public var jitter: UInt32
    /// The middle 32 bits of the NTP timestamp of the last SR from this source (0: none yet).
    public var lastSenderReport: UInt32
    /// Since that SR, in units of 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    public init(ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequence: UInt32,
                jitter: UInt32, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = max(-0x80_0000, min(0x7F_FFFF, cumulativeLost))
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    static func read(_ b: UnsafeRawBufferPointer, _ at: Int) -> RTCPReportBlock {
        let lost24 = be32(b, at + 4) & 0x00FF_FFFF
        // Sign-extend the 24-bit two's complement count.
        let lost = lost24 & 0x80_0000 != 0 ? Int32(bitPattern: lost24 | 0xFF00_0000) : Int32(lost24)
        return RTCPReportBlock(ssrc: be32(b, at), fractionLost: b[at + 4], cumulativeLost: lost,
                               extendedHighestSequence: be32(b, at + 8), jitter: be32(b, at + 12),
                               lastSenderReport: be32(b, at + 16), delaySinceLastSenderReport: be32(b, at + 20))
    }

    func write(into out: inout [UInt8]) {
        appendBE32(&out, ssrc)
        let lost = UInt32(bitPattern: max(-0x80_0000, min(0x7F_FFFF, cumulativeLost))) & 0x00FF_FFFF
        appendBE32(&out, UInt32(fractionLost) << 24 | lost)
        appendBE32(&out, extendedHighestSequence)
        appendBE32(&out, jitter)
        appendBE32(&out, lastSenderReport)
        appendBE32(&out, delaySinceLastSenderReport)
    }
}
