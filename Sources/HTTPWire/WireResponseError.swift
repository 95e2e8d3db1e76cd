/// What was wrong with the bytes a server sent, named precisely enough to find the fault in a capture: the part
/// of the response (status line, a header, the framing, a chunk) and what in it broke the rule (RFC 9112).
public enum WireResponseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The status line is not `HTTP/1.x DDD reason`; the line as received (cut at 80 bytes).
    case statusLine(String)
    /// A header line is not `name: value` (no colon, a space before it, a character outside a token in the name,
    /// or obsolete line folding); the line as received and why.
    case headerLine(String, reason: String)
    /// Content-Length is not a decimal number, or two of them disagree.
    case contentLength(String)
    /// A chunk-size line is not hexadecimal digits (with optional extensions), or the size overflows.
    case chunkSize(String)
    /// A chunk's data is not followed by CRLF.
    case chunkTerminator
    /// The status line and headers exceed the limit without ending in an empty line.
    case headTooLarge(limit: Int)
    /// The body exceeds the limit.
    case bodyTooLarge(limit: Int)
    /// The stream ended before the response did; where it was.
    case truncated(String)
    /// Bytes arrived after a complete response although no request was waiting for them.
    case unexpectedBytes(count: Int)

    public var description: String {
        switch self {
        case .statusLine(let line): return "malformed status line \"\(line)\" (expected HTTP/1.x DDD reason)"
        case .headerLine(let line, let reason): return "malformed header line \"\(line)\": \(reason)"
        case .contentLength(let value): return "malformed Content-Length \"\(value)\" (expected one decimal number)"
        case .chunkSize(let line): return "malformed chunk-size line \"\(line)\" (expected hexadecimal digits)"
        case .chunkTerminator: return "chunk data not followed by CRLF (chunk longer than its size line said?)"
        case .headTooLarge(let limit): return "status line and headers longer than \(limit) bytes"
        case .bodyTooLarge(let limit): return "response body larger than \(limit) bytes"
        case .truncated(let part): return "connection closed in the middle of the response (\(part))"
        case .unexpectedBytes(let count): return "\(count) bytes arrived after a complete response, none asked for"
        }
    }

    /// Up to 80 bytes of `bytes` as text, for messages.
    static func quote(_ bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes.prefix(80), as: UTF8.self)
    }
}
