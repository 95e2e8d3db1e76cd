/// One RTCP packet of a compound datagram (RFC 3550 §6.4): the sender and receiver reports callstorm writes and
/// reads, and the other types kept by type and size only (SDES, BYE, APP and newer ones are not needed to count
/// what the far end saw).
public enum RTCPPacket: Sendable, Equatable {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    /// Any other packet type (202 SDES, 203 BYE, 204 APP, ...) with its length in bytes, header included.
    case other(type: UInt8, length: Int)

    public static let senderReportType: UInt8 = 200
    public static let receiverReportType: UInt8 = 201

    /// Reads a compound RTCP datagram: every packet in order. The first must be an SR or RR (§6.1); lengths must
    /// tile the datagram exactly; only the last packet may carry padding.
    public static func parseCompound(_ bytes: UnsafeRawBufferPointer) throws(RTCPParseError) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 4 else { throw .shorterThanHeader(length: bytes.count - offset) }
            let first = bytes[offset]
            guard first >> 6 == 2 else { throw .wrongVersion(first >> 6) }
            let type = bytes[offset + 1]
            let length = 4 * (Int(be16(bytes, offset + 2)) + 1)
            guard length <= bytes.count - offset else {
                throw .lengthBeyondEnd(stated: length, available: bytes.count - offset)
            }
            var end = offset + length
            if first & 0x20 != 0 {
                let pad = Int(bytes[end - 1])
                guard end == bytes.count, pad >= 1, pad <= length - 4 else {
                    throw .badPadding(padding: pad, packetLength: length)
                }
                end -= pad
            }
            let body = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
            let count = Int(first & 0x1F)
            switch type {
            case senderReportType: packets.append(.senderReport(try RTCPSenderReport.read(body, count: count)))
            case receiverReportType: packets.append(.receiverReport(try RTCPReceiverReport.read(body, count: count)))
            default:
                guard !packets.isEmpty else { throw .firstPacketNotAReport(type: type) }
                packets.append(.other(type: type, length: length))
            }
            offset += length
        }
        guard !packets.isEmpty else { throw .shorterThanHeader(length: 0) }
        return packets
    }

    /// Writes packets one after another as a compound datagram (no padding; SR and RR only, `other` is skipped).
    public static func writeCompound(_ packets: [RTCPPacket]) -> [UInt8] {
        var out: [UInt8] = []
        for packet in packets {
            switch packet {
            case .senderReport(let report): report.write(into: &out)
            case .receiverReport(let report): report.write(into: &out)
            case .other: continue
            }
        }
        return out
    }
}

/// Why bytes are not a compound RTCP datagram.
public enum RTCPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case shorterThanHeader(length: Int)
    case wrongVersion(UInt8)
    case lengthBeyondEnd(stated: Int, available: Int)
    case badPadding(padding: Int, packetLength: Int)
    case reportBlocksBeyondLength(count: Int, length: Int)
    case firstPacketNotAReport(type: UInt8)

    public var kind: MediaMalformedKind {
        switch self {
        case .shorterThanHeader: return .short
        case .wrongVersion: return .version
        case .lengthBeyondEnd: return .rtcpLength
        case .badPadding: return .padding
        case .reportBlocksBeyondLength: return .rtcpReportCount
        case .firstPacketNotAReport: return .rtcpFirstPacket
        }
    }

    public var description: String {
        switch self {
        case .shorterThanHeader(let length): return "RTCP packet of \(length) bytes is shorter than its fixed part"
        case .wrongVersion(let version): return "RTCP version \(version), expected 2"
        case .lengthBeyondEnd(let stated, let available):
            return "RTCP length field says \(stated) bytes, \(available) are left in the datagram"
        case .badPadding(let padding, let length):
            return "RTCP padding count \(padding) in a packet of \(length) bytes (only the last packet may pad)"
        case .reportBlocksBeyondLength(let count, let length):
            return "RTCP report count \(count) needs \(count * RTCPReportBlock.size) bytes of blocks; "
                + "the packet is \(length)"
        case .firstPacketNotAReport(let type):
            return "RTCP compound starts with packet type \(type); RFC 3550 §6.1 requires SR (200) or RR (201)"
        }
    }
}

/// An SR (§6.4.1): a sender's NTP and RTP time, its packet and octet counts, and its reception reports.
public struct RTCPSenderReport: Sendable, Equatable {
    public var ssrc: UInt32
    /// NTP timestamp: seconds since 1900 (high 32 bits) and the fraction (low 32).
    public var ntpTimestamp: UInt64
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    public var reports: [RTCPReportBlock]

    public init(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
                reports: [RTCPReportBlock] = []) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = Array(reports.prefix(31))
    }

    /// The 32 bits a receiver echoes as LSR (§6.4.1): the middle of the NTP timestamp.
    public var compactNTP: UInt32 { UInt32(truncatingIfNeeded: ntpTimestamp >> 16) }

    static func read(_ b: UnsafeRawBufferPointer, count: Int) throws(RTCPParseError) -> RTCPSenderReport {
        guard b.count >= 28 else { throw .shorterThanHeader(length: b.count) }
        guard 28 + count * RTCPReportBlock.size <= b.count else {
            throw .reportBlocksBeyondLength(count: count, length: b.count)
        }
        let ntp = UInt64(be32(b, 8)) << 32 | UInt64(be32(b, 12))
        return RTCPSenderReport(ssrc: be32(b, 4), ntpTimestamp: ntp, rtpTimestamp: be32(b, 16),
                                packetCount: be32(b, 20), octetCount: be32(b, 24),
                                reports: (0..<count).map { RTCPReportBlock.read(b, 28 + $0 * RTCPReportBlock.size) })
    }

    func write(into out: inout [UInt8]) {
        out.append(0x80 | UInt8(reports.count))
        out.append(RTCPPacket.senderReportType)
        appendBE16(&out, UInt16(6 + 6 * reports.count))  // 32-bit words minus one: 28 bytes + blocks
        appendBE32(&out, ssrc)
        appendBE32(&out, UInt32(ntpTimestamp >> 32))
        appendBE32(&out, UInt32(truncatingIfNeeded: ntpTimestamp))
        appendBE32(&out, rtpTimestamp)
        appendBE32(&out, packetCount)
        appendBE32(&out, octetCount)
        for block in reports { block.write(into: &out) }
    }
}

/// An RR (§6.4.2): a receiver that sends nothing itself reports on what it received.
public struct RTCPReceiverReport: Sendable, Equatable {
    public var ssrc: UInt32
    public var reports: [RTCPReportBlock]

    public init(ssrc: UInt32, reports: [RTCPReportBlock] = []) {
        self.ssrc = ssrc
        self.reports = Array(reports.prefix(31))
    }

    static func read(_ b: UnsafeRawBufferPointer, count: Int) throws(RTCPParseError) -> RTCPReceiverReport {
        guard b.count >= 8 else { throw .shorterThanHeader(length: b.count) }
        guard 8 + count * RTCPReportBlock.size <= b.count else {
            throw .reportBlocksBeyondLength(count: count, length: b.count)
        }
        return RTCPReceiverReport(ssrc: be32(b, 4),
                                  reports: (0..<count).map { RTCPReportBlock.read(b, 8 + $0 * RTCPReportBlock.size) })
    }

    func write(into out: inout [UInt8]) {
        out.append(0x80 | UInt8(reports.count))
        out.append(RTCPPacket.receiverReportType)
        appendBE16(&out, UInt16(1 + 6 * reports.count))
        appendBE32(&out, ssrc)
        for block in reports { block.write(into: &out) }
    }
}
