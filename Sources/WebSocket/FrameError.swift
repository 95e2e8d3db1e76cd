/// A way a received frame or message breaks RFC 6455, each with the close code the receiver sends before it
/// drops the connection (§7.1.7 "Fail the WebSocket Connection").
public enum FrameError: Error, Equatable, Sendable, CustomStringConvertible {
    /// RSV1–3 set with no extension negotiated (§5.2).
    case reservedBitsSet(UInt8)
    /// An opcode RFC 6455 reserves (3–7, 11–15).
    case unknownOpcode(UInt8)
    /// A server sent a masked frame; servers must not mask (§5.1).
    case maskedFrameFromServer
    /// A client sent an unmasked frame; clients must mask every frame (§5.1).
    case unmaskedFrameFromClient
    /// A close, ping or pong without FIN (§5.5).
    case fragmentedControlFrame
    /// A control frame with more than 125 payload bytes (§5.5).
    case controlFrameTooLong(Int)
    /// A 64-bit length with its most significant bit set (§5.2).
    case invalidLength
    /// A frame or reassembled message beyond the receiver's limit.
    case messageTooBig(limit: Int)
    /// A text message (or close reason) that is not valid UTF-8 (§8.1).
    case invalidUTF8
    /// A continuation frame with no message in progress.
    case unexpectedContinuation
    /// A new text or binary frame while a fragmented message is unfinished.
    case expectedContinuation
    /// A close frame with a one-byte payload (a code needs two).
    case invalidClosePayload
    /// A close code that may not be sent on the wire (§7.4).
    case invalidCloseCode(UInt16)

    /// The code this endpoint closes with.
    public var closeCode: CloseCode {
        switch self {
        case .messageTooBig: return .messageTooBig
        case .invalidUTF8: return .invalidPayload
        default: return .protocolError
        }
    }

    /// A stable counter key (`bad_opcode`, `masked_server_frame`, …), one per kind, without the values.
    public var kind: String {
        switch self {
        case .reservedBitsSet: return "reserved_bits"
        case .unknownOpcode: return "bad_opcode"
        case .maskedFrameFromServer: return "masked_server_frame"
        case .unmaskedFrameFromClient: return "unmasked_client_frame"
        case .fragmentedControlFrame: return "fragmented_control"
        case .controlFrameTooLong: return "control_too_long"
        case .invalidLength: return "bad_length"
        case .messageTooBig: return "oversize"
        case .invalidUTF8: return "invalid_utf8"
        case .unexpectedContinuation: return "unexpected_continuation"
        case .expectedContinuation: return "expected_continuation"
        case .invalidClosePayload: return "bad_close_payload"
        case .invalidCloseCode: return "bad_close_code"
        }
    }

    public var description: String {
        switch self {
        case .reservedBitsSet(let bits):
            return "frame has reserved bits \(bits) set but no extension was negotiated"
        case .unknownOpcode(let code): return "frame has reserved opcode \(code)"
        case .maskedFrameFromServer: return "server sent a masked frame (servers must not mask)"
        case .unmaskedFrameFromClient: return "client sent an unmasked frame (clients must mask)"
        case .fragmentedControlFrame: return "control frame without FIN (control frames are never fragmented)"
        case .controlFrameTooLong(let n): return "control frame of \(n) bytes (at most 125)"
        case .invalidLength: return "64-bit payload length has its top bit set"
        case .messageTooBig(let limit): return "message exceeds the \(limit)-byte limit; raise max_message if meant"
        case .invalidUTF8: return "text payload is not valid UTF-8"
        case .unexpectedContinuation: return "continuation frame with no fragmented message in progress"
        case .expectedContinuation: return "new data frame before the fragmented message in progress finished"
        case .invalidClosePayload: return "close frame payload of 1 byte (a code takes 2)"
        case .invalidCloseCode(let code): return "close code \(code) may not be sent on the wire"
        }
    }
}
