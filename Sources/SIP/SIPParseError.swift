/// A way received bytes fail to be a SIP message (RFC 3261 §7, §25), each with a stable counter key. A user agent
/// answers a malformed request with 400 when it can still read enough to address a response (Via, From, To,
/// Call-ID, CSeq), drops anything else, and counts every case by `kind`.
public enum SIPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The head (start line and headers) exceeded the limit before its blank line.
    case headTooLarge(limit: Int)
    /// A datagram with no blank line after its headers.
    case truncatedHead
    /// Neither `METHOD URI SIP/2.0` nor `SIP/2.0 CODE REASON`.
    case badStartLine
    /// A SIP version other than 2.0.
    case unsupportedVersion
    /// A status code that is not three digits from 100 to 699.
    case badStatusCode
    /// A header line without a colon, or with a name that is not a token.
    case badHeaderLine
    /// Content-Length that is not a decimal number, or several that disagree.
    case badContentLength
    /// A message on a stream (TCP) without Content-Length, which §18.3 requires there.
    case missingContentLength
    /// A body longer than the receiver accepts.
    case bodyTooLarge(limit: Int)
    /// A datagram that announces more body than it carries (§18.3: discard).
    case truncatedBody
    /// One of the headers §8.1.1 requires in every message is absent.
    case missingHeader(String)
    /// CSeq that is not `<number> <method>`, or whose method differs from the request's.
    case badCSeq

    public var kind: String {
        switch self {
        case .headTooLarge: return "head_too_large"
        case .truncatedHead: return "truncated_head"
        case .badStartLine: return "bad_start_line"
        case .unsupportedVersion: return "bad_version"
        case .badStatusCode: return "bad_status"
        case .badHeaderLine: return "bad_header"
        case .badContentLength: return "bad_content_length"
        case .missingContentLength: return "missing_content_length"
        case .bodyTooLarge: return "body_too_large"
        case .truncatedBody: return "truncated_body"
        case .missingHeader: return "missing_header"
        case .badCSeq: return "bad_cseq"
        }
    }

    /// Whether the stream it came on cannot be read further (framing lost); datagram errors never are.
    public var losesFraming: Bool {
        switch self {
        case .headTooLarge, .badContentLength, .missingContentLength, .bodyTooLarge: return true
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .headTooLarge(let limit): return "SIP head exceeds \(limit) bytes before its blank line"
        case .truncatedHead: return "datagram ends before the blank line after the SIP headers"
        case .badStartLine: return "start line is neither a SIP request line nor a status line"
        case .unsupportedVersion: return "SIP version is not SIP/2.0"
        case .badStatusCode: return "status code is not a number from 100 to 699"
        case .badHeaderLine: return "header line has no colon or its name is not a token"
        case .badContentLength: return "Content-Length is not a non-negative decimal number"
        case .missingContentLength: return "message on a stream transport has no Content-Length (RFC 3261 §18.3)"
        case .bodyTooLarge(let limit): return "SIP body exceeds the \(limit)-byte limit"
        case .truncatedBody: return "datagram carries fewer body bytes than its Content-Length"
        case .missingHeader(let name): return "required header \(name) is missing"
        case .badCSeq: return "CSeq is not '<number> <method>' matching the request method"
        }
    }
}
