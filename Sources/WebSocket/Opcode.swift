/// The frame kinds RFC 6455 §5.2 defines. Values 3–7 and 11–15 are reserved: a frame carrying one fails the
/// connection with 1002.
public enum Opcode: UInt8, Sendable, CaseIterable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Control frames (close, ping, pong) may sit between the fragments of a message, must carry at most 125
    /// bytes and are never fragmented (§5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }
}

/// Which end of the connection a codec works for. It decides the mask rule (§5.1): a client masks every
/// frame it sends and rejects masked frames it receives; a server does the opposite.
public enum Role: Sendable {
    case client
    case server
}
