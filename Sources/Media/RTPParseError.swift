/// Why bytes are not an RTP packet (RFC 3550 §5.1), with what was found, so a log line says what to look at.
public enum RTPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    case shorterThanHeader(length: Int)
    case wrongVersion(UInt8)
    case csrcListBeyondEnd(csrcCount: Int, length: Int)
    case extensionBeyondEnd(extensionBytes: Int, length: Int)
    case paddingBeyondPayload(padding: Int, available: Int)

    /// The key the packet is counted under.
    public var kind: MediaMalformedKind {
        switch self {
        case .shorterThanHeader: return .short
        case .wrongVersion: return .version
        case .csrcListBeyondEnd: return .csrcList
        case .extensionBeyondEnd: return .headerExtension
        case .paddingBeyondPayload: return .padding
        }
    }

    public var description: String {
        switch self {
        case .shorterThanHeader(let length):
            return "RTP packet of \(length) bytes is shorter than the 12-byte fixed header"
        case .wrongVersion(let version):
            return "RTP version \(version), expected 2 (is this RTCP, STUN or another protocol on the port?)"
        case .csrcListBeyondEnd(let count, let length):
            return "RTP CSRC count \(count) needs \(12 + 4 * count) bytes, the packet has \(length)"
        case .extensionBeyondEnd(let bytes, let length):
            return "RTP header extension of \(bytes) bytes runs past the packet's \(length) bytes"
        case .paddingBeyondPayload(let padding, let available):
            return "RTP padding count \(padding) with \(available) bytes after the header (must be 1...\(available))"
        }
    }
}
