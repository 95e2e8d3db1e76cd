/// What one endpoint receives, once fragments are joined and payloads checked.
public enum Message: Equatable, Sendable {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    /// The peer's close frame: its code (nil when the frame had none, which reports as 1005) and reason.
    case close(CloseCode?, String)
}

/// Joins fragments into messages (§5.4) and checks what spans frames: continuation order, the message size
/// limit, UTF-8 of whole text messages, close payloads. Control frames pass straight through, also between
/// the fragments of a message.
public struct MessageAssembler: Sendable {
    public let maxMessageBytes: Int
    private var partial: [UInt8] = []
    private var partialOpcode: Opcode?

    public init(maxMessageBytes: Int = 1 << 20) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// The message `frame` completes, nil when it was a fragment that leaves the message unfinished.
    public mutating func take(_ frame: Frame) throws(FrameError) -> Message? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try Self.close(frame.payload)
        case .continuation:
            guard let opcode = partialOpcode else { throw .unexpectedContinuation }
            guard partial.count + frame.payload.count <= maxMessageBytes else {
                throw .messageTooBig(limit: maxMessageBytes)
            }
            partial.append(contentsOf: frame.payload)
            guard frame.fin else { return nil }
            let whole = partial
            partial = []
            partialOpcode = nil
            return try Self.finish(opcode, whole)
        case .text, .binary:
            guard partialOpcode == nil else { throw .expectedContinuation }
            guard frame.payload.count <= maxMessageBytes else { throw .messageTooBig(limit: maxMessageBytes) }
            if frame.fin { return try Self.finish(frame.opcode, frame.payload) }
            partial = frame.payload
            partialOpcode = frame.opcode
            return nil
        }
    }

    private static func finish(_ opcode: Opcode, _ payload: [UInt8]) throws(FrameError) -> Message {
        guard opcode == .text else { return .binary(payload) }
        guard UTF8Validation.isValid(payload) else { throw .invalidUTF8 }
        return .text(String(decoding: payload, as: UTF8.self))
    }

    private static func close(_ payload: [UInt8]) throws(FrameError) -> Message {
        if payload.isEmpty { return .close(nil, "") }
        guard payload.count >= 2 else { throw .invalidClosePayload }
        let code = CloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isValidOnTheWire else { throw .invalidCloseCode(code.rawValue) }
        let reason = Array(payload[2...])
        guard UTF8Validation.isValid(reason) else { throw .invalidUTF8 }
        return .close(code, String(decoding: reason, as: UTF8.self))
    }
}

/// A frame parser and a message assembler together: bytes in, messages out. What connections and the fuzz
/// target use.
public struct MessageReader: Sendable {
    public private(set) var parser: FrameParser
    private var assembler: MessageAssembler

    public init(role: Role, maxMessageBytes: Int = 1 << 20) {
        parser = FrameParser(role: role, maxFrameBytes: maxMessageBytes)
        assembler = MessageAssembler(maxMessageBytes: maxMessageBytes)
    }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) { parser.append(bytes) }
    public mutating func append(_ bytes: [UInt8]) { parser.append(bytes) }

    /// The next whole message, nil when more bytes are needed.
    public mutating func next() throws(FrameError) -> Message? {
        while let frame = try parser.next() {
            if let message = try assembler.take(frame) { return message }
        }
        return nil
    }
}
