extension MediaSession {
    /// This end's RTCP report now (RFC 3550 §6.4): an SR once it has sent (its packet and octet counts, the RTP
    /// time of `ntpTimestamp`'s instant), else an RR; with one report block on the far end's source once one was
    /// heard (its fraction lost covers the time since the last report). `nowNanos` is the owner's clock reading,
    /// `ntpTimestamp` the same instant as NTP (seconds since 1900 in the high 32 bits).
    public mutating func rtcpReport(nowNanos: UInt64, ntpTimestamp: UInt64) -> RTCPPacket {
        var blocks: [RTCPReportBlock] = []
        if let remoteSSRC { blocks.append(takeReportBlock(ssrc: remoteSSRC)) }
        guard sent.packets > 0, let answeredAt else {
            return .receiverReport(RTCPReceiverReport(ssrc: settings.ssrc, reports: blocks))
        }
        let elapsed = nowNanos >= answeredAt ? nowNanos - answeredAt : 0
        let rtpTime = settings.initialTimestamp
            &+ UInt32(truncatingIfNeeded: elapsed / (1_000_000_000 / UInt64(MediaCodec.clockRate)))
        return .senderReport(RTCPSenderReport(ssrc: settings.ssrc, ntpTimestamp: ntpTimestamp, rtpTimestamp: rtpTime,
                                              packetCount: UInt32(truncatingIfNeeded: sent.packets),
                                              octetCount: UInt32(truncatingIfNeeded: sent.octets), reports: blocks))
    }
}
