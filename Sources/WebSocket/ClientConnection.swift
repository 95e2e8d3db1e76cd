import Bytes
import Determinism

/// How a connection ended, for the owner's books.
public enum CloseCause: Equatable, Sendable {
    /// This end sent close first and the peer answered.
    case local
    /// The peer sent close first; this end echoed it.
    case remote
    /// The peer broke RFC 6455; this end closed with the error's code.
    case protocolError(FrameError)
    /// The opening handshake failed; no WebSocket was ever open.
    case handshakeFailed(HandshakeError)
    /// The byte stream ended (reset, EOF, I/O error) without a closing handshake: a lost socket.
    case transport
    /// This end dropped the socket without a closing handshake (an abrupt close on purpose).
    case aborted
    /// The TCP connection could not be made (the errno), or did not finish in time (ETIMEDOUT).
    case connectFailed(Int32)
    /// The TLS handshake failed (certificate not trusted, name mismatch, protocol).
    case tlsFailed

    /// A stable counter key: `local`, `remote`, `protocol.<kind>`, `handshake.<kind>`, `lost`, `aborted`.
    public var kind: String {
        switch self {
        case .local: return "local"
        case .remote: return "remote"
        case .protocolError(let error): return "protocol." + error.kind
        case .handshakeFailed(let error): return "handshake." + error.kind
        case .transport: return "lost"
        case .aborted: return "aborted"
        case .connectFailed: return "connect"
        case .tlsFailed: return "tls"
        }
    }
}

/// The end of one connection: why, and the close code that stands for it (the peer's code for a closing
/// handshake, 1005 when its close frame had none, 1006 when there was no closing handshake, the error's code
/// for a protocol error).
public struct CloseReport: Equatable, Sendable {
    public var cause: CloseCause
    public var code: CloseCode
    public var reason: String

    public init(cause: CloseCause, code: CloseCode, reason: String) {
        self.cause = cause
        self.code = code
        self.reason = reason
    }
}

/// One client WebSocket as a state machine with no socket (connecting → open → closing → closed): bytes from
/// the peer go into `receive`, bytes to send collect in `outbound`, so the rules are tested without I/O and any
/// loop can drive it.
///
/// Thread rule: a value owned by one connection on one thread.
public struct ClientConnection: Sendable {
    public enum State: Equatable, Sendable {
        case connecting
        case open
        /// This end sent close and waits for the peer's.
        case closing
        case closed
    }

    /// What happened as a result of `receive` or `transportClosed`.
    public enum Event: Equatable, Sendable {
        case opened
        /// A text or binary message (control frames are answered here and not reported, except pongs).
        case message(Message)
        case pong([UInt8])
        case closed(CloseReport)
    }

    public enum SendError: Error, Equatable, Sendable {
        /// Only an open connection sends data; a closing or closed one refuses, a connecting one too.
        case notOpen(State)
        /// Ping payloads are control frames: at most 125 bytes.
        case controlPayloadTooLong(Int)
    }

    public private(set) var state: State = .connecting
    /// Bytes to write to the peer, in order: the owner drains them (`drainOutbound`); an emptied queue keeps no
    /// buffer, so an idle socket holds none.
    @usableFromInline var unsent = ByteQueue()
    private var handshake: HandshakeResponseParser?
    private var reader: MessageReader
    private var random: SeededRandom
    /// Whether this end has sent its close frame.
    private var sentClose = false
    /// The subprotocol the server's 101 chose (its Sec-WebSocket-Protocol), nil before it or when it named none.
    public private(set) var subprotocol: String?

    /// Starts a connection: the Upgrade request is queued in `outbound` at once. The seeded generator gives the
    /// key and every mask key (§5.3 asks for unpredictable masks to defeat cache poisoning by a page in a
    /// browser; a load tool talking to the server under test gains more from replayable runs).
    public init(url: WebSocketURL, headers: [(name: String, value: String)] = [], random: SeededRandom,
                maxMessageBytes: Int = 1 << 20) throws(HandshakeError) {
        var random = random
        let key = Handshake.newKey(&random)
        unsent = ByteQueue(try Handshake.request(url: url, key: key, headers: headers))
        handshake = HandshakeResponseParser(key: key)
        reader = MessageReader(role: .client, maxMessageBytes: maxMessageBytes)
        self.random = random
    }

    /// Bytes still to write.
    public var pendingBytes: Int { unsent.count }

    /// The bytes still to write, copied (for tests and diagnostics; the owner writes with `drainOutbound`).
    public var outbound: [UInt8] { Array(unsent.readable) }

    /// Whether the owner should close the socket once `pendingBytes` is 0.
    public var isFinished: Bool { state == .closed }

    /// Records that `count` bytes from the front of the unsent part were written.
    public mutating func didWrite(_ count: Int) {
        unsent.consume(min(count, unsent.count))
    }

    /// Calls `body` with the unsent bytes (for `write(2)`), returning what it returns.
    public func withPendingBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        unsent.withReadableBytes(body)
    }

    /// Writes the unsent bytes with `write` (the owner's socket) until none are left, the socket would block, or a
    /// write fails; what went out is consumed.
    @inlinable
    public mutating func drainOutbound(through write: (UnsafeRawBufferPointer) -> IOResult) -> ByteQueue.Drain {
        unsent.drain(keepingCapacityUpTo: 0, through: write)
    }

    // MARK: - Receiving

    /// Feeds bytes read from the socket; returns what they caused, in order.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> [Event] {
        var events: [Event] = []
        guard state != .closed else { return events }
        if var parser = handshake {
            do {
                guard let rest = try parser.append(bytes) else { handshake = parser; return events }
                handshake = nil
                subprotocol = parser.subprotocol
                state = .open
                events.append(.opened)
                rest.withUnsafeBytes { reader.append($0) }
            } catch {
                handshake = nil
                finish(.handshakeFailed(error), .abnormal, "", into: &events)
                return events
            }
        } else {
            reader.append(bytes)
        }
        drain(into: &events)
        return events
    }

    public mutating func receive(_ bytes: [UInt8]) -> [Event] {
        bytes.withUnsafeBytes { receive($0) }
    }

    private mutating func drain(into events: inout [Event]) {
        while state != .closed {
            let message: Message?
            do {
                message = try reader.next()
            } catch {
                if !sentClose { queue(.close, FrameEncoder.closePayload(error.closeCode, reason: error.kind)) }
                sentClose = true
                finish(.protocolError(error), error.closeCode, error.description, into: &events)
                return
            }
            guard let message else { return }
            switch message {
            case .ping(let payload):
                if state == .open { queue(.pong, payload) }
            case .pong(let payload):
                events.append(.pong(payload))
            case .close(let code, let reason):
                let wasClosing = state == .closing
                if !sentClose {
                    // Echo the peer's code (§5.5.1); a close without a code is answered without one.
                    queue(.close, code.map { FrameEncoder.closePayload($0) } ?? [])
                    sentClose = true
                }
                finish(wasClosing ? .local : .remote, code ?? .noStatus, reason, into: &events)
            case .text, .binary:
                events.append(.message(message))
            }
        }
    }

    /// The socket ended (EOF, reset, error). Reports a lost connection unless it was already closed.
    public mutating func transportClosed() -> Event? {
        guard state != .closed else { return nil }
        var events: [Event] = []
        if handshake != nil {
            handshake = nil
            finish(.handshakeFailed(.closedDuringHandshake), .abnormal, "", into: &events)
        } else {
            finish(.transport, .abnormal, "", into: &events)
        }
        return events.first
    }

    // MARK: - Sending

    public mutating func send(text: String, maxFrameBytes: Int = .max) throws(SendError) {
        try sendData(.text, Array(text.utf8), maxFrameBytes: maxFrameBytes)
    }

    public mutating func send(binary: [UInt8], maxFrameBytes: Int = .max) throws(SendError) {
        try sendData(.binary, binary, maxFrameBytes: maxFrameBytes)
    }

    /// Queues a message, split into frames of at most `maxFrameBytes` (a continuation sequence, §5.4).
    private mutating func sendData(_ opcode: Opcode, _ payload: [UInt8], maxFrameBytes: Int) throws(SendError) {
        guard state == .open else { throw .notOpen(state) }
        let size = max(1, maxFrameBytes)
        if payload.count <= size {
            queue(opcode, payload)
            return
        }
        var start = 0
        while start < payload.count {
            let end = min(payload.count, start + size)
            queue(start == 0 ? opcode : .continuation, Array(payload[start..<end]), fin: end == payload.count)
            start = end
        }
    }

    public mutating func ping(_ payload: [UInt8] = []) throws(SendError) {
        guard state == .open else { throw .notOpen(state) }
        guard payload.count <= 125 else { throw .controlPayloadTooLong(payload.count) }
        queue(.ping, payload)
    }

    /// Starts the closing handshake: queues a close frame and waits for the peer's. On a connection still
    /// connecting it gives up at once (returns the report); on one already closing or closed it does nothing.
    @discardableResult
    public mutating func close(_ code: CloseCode = .normal, reason: String = "") -> CloseReport? {
        switch state {
        case .connecting:
            var events: [Event] = []
            handshake = nil
            finish(.aborted, .abnormal, "", into: &events)
            if case .closed(let report)? = events.first { return report }
            return nil
        case .open:
            queue(.close, FrameEncoder.closePayload(code, reason: reason))
            sentClose = true
            state = .closing
            return nil
        case .closing, .closed:
            return nil
        }
    }

    /// Drops the connection without a closing handshake (an abrupt close on purpose).
    public mutating func abort() -> CloseReport? {
        guard state != .closed else { return nil }
        var events: [Event] = []
        handshake = nil
        unsent = ByteQueue()
        finish(.aborted, .abnormal, "", into: &events)
        if case .closed(let report)? = events.first { return report }
        return nil
    }

    // MARK: - Helpers

    private mutating func queue(_ opcode: Opcode, _ payload: [UInt8], fin: Bool = true) {
        let mask = UInt32(truncatingIfNeeded: random.next())
        unsent.appending { FrameEncoder.append(opcode, payload: payload, fin: fin, maskKey: mask, to: &$0) }
    }

    private mutating func finish(_ cause: CloseCause, _ code: CloseCode, _ reason: String,
                                 into events: inout [Event]) {
        state = .closed
        events.append(.closed(CloseReport(cause: cause, code: code, reason: reason)))
    }
}
