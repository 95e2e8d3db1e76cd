/// A close status code (RFC 6455 §7.4). A struct rather than an enum because peers may send any code in the
/// application ranges (3000–4999), which must be carried through as they are.
public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normal = CloseCode(1000)
    /// 1001: the endpoint is going away (server shutting down, app backgrounded).
    public static let goingAway = CloseCode(1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = CloseCode(1002)
    /// 1003: a data type the endpoint cannot accept (binary to a text-only endpoint).
    public static let unsupportedData = CloseCode(1003)
    /// 1005: no code was present in the close frame. Reported, never sent.
    public static let noStatus = CloseCode(1005)
    /// 1006: the connection closed without a close frame. Reported, never sent.
    public static let abnormal = CloseCode(1006)
    /// 1007: a text message was not valid UTF-8.
    public static let invalidPayload = CloseCode(1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = CloseCode(1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = CloseCode(1009)
    /// 1011: the server met an unexpected condition.
    public static let internalError = CloseCode(1011)

    /// Whether a peer may put this code in a close frame. 1005, 1006 and 1015 stand for conditions and must
    /// never be sent; codes under 1000, the unassigned protocol codes and 5000+ are invalid on the wire.
    public var isValidOnTheWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// A stable name for counters and reports (`close.1000`), numeric so application codes need no table.
    public var description: String { String(rawValue) }
}
