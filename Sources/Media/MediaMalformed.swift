/// What was wrong with an RTP or RTCP packet that could not be read: the stable key it is counted under, so a
/// flood of garbage shows as counts by kind (never a crash, never a stop).
public enum MediaMalformedKind: Int, CaseIterable, Sendable, CustomStringConvertible {
    /// Fewer bytes than the fixed header (12 for RTP, 4 or the report's fixed part for RTCP).
    case short
    /// The version field is not 2 (RFC 3550 §5.1, §6.4.1).
    case version
    /// The CSRC list (CC × 4 bytes) runs past the end of the packet.
    case csrcList
    /// The header extension (X bit) runs past the end of the packet.
    case headerExtension
    /// The P bit is set but the last byte's padding count is 0 or longer than what follows the header.
    case padding
    /// An RTCP packet whose length field runs past the datagram (or a compound that is not whole packets).
    case rtcpLength
    /// An RTCP SR or RR whose report count (RC) does not fit in its length.
    case rtcpReportCount
    /// An RTCP compound whose first packet is not an SR or RR (RFC 3550 §6.1).
    case rtcpFirstPacket

    public var description: String {
        switch self {
        case .short: return "short"
        case .version: return "version"
        case .csrcList: return "csrc_list"
        case .headerExtension: return "header_extension"
        case .padding: return "padding"
        case .rtcpLength: return "rtcp_length"
        case .rtcpReportCount: return "rtcp_report_count"
        case .rtcpFirstPacket: return "rtcp_first_packet"
        }
    }
}

/// Malformed packets counted by kind; a value, merged per stream and per run.
public struct MediaMalformedCounts: Sendable, Equatable {
    private var counts = [Int](repeating: 0, count: MediaMalformedKind.allCases.count)

    public init() {}

    public mutating func count(_ kind: MediaMalformedKind) { counts[kind.rawValue] += 1 }

    public subscript(kind: MediaMalformedKind) -> Int { counts[kind.rawValue] }

    public var total: Int { counts.reduce(0, +) }

    /// The kinds seen, by their stable key (`short`, `version`, …), for a report row.
    public var byKey: [String: Int] {
        var out: [String: Int] = [:]
        for kind in MediaMalformedKind.allCases where counts[kind.rawValue] > 0 {
            out[kind.description] = counts[kind.rawValue]
        }
        return out
    }

    public mutating func merge(_ other: MediaMalformedCounts) {
        for i in counts.indices { counts[i] += other.counts[i] }
    }
}
