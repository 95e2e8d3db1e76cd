import Determinism
import WebSocket

/// One agent's SIP over WebSocket (RFC 7118) on its connection to the proxy: the HTTP Upgrade asking for the `sip`
/// subprotocol, then one SIP message per WebSocket message, masked as a client's frames must be. The framing and
/// the handshake are the WebSocket module's `ClientConnection` (the same state machine the devices' sockets use);
/// this value adds what SIP needs: messages the agent sends before the Upgrade is answered wait for it, and what
/// comes back is read as whole SIP messages (a WebSocket message frames one, so no stream framer and no
/// Content-Length needed).
///
/// Thread rule: owned by one `SIPSocket` on the pool's event thread.
struct SIPWebSocketLink {
    /// What bytes from the proxy caused, in order.
    enum Outcome: Equatable {
        /// The Upgrade was answered 101 (the `sip` subprotocol's connection is open).
        case opened
        /// One SIP message (a text or binary WebSocket message's payload).
        case message([UInt8])
        /// The connection ended: a refused Upgrade, a close frame, a protocol error.
        case closed(Ending)
    }

    /// How a connection ended, in the words the pool's books use.
    struct Ending: Equatable {
        /// The `SIPCounters.transportFailures` cause (`cause(_:)`).
        let cause: String
        /// The Upgrade was refused or broken: no SIP was carried, so the connection fails for good.
        let refused: Bool
        /// Whether it is counted: every end but a stream that just ended after the Upgrade (as on TCP, a
        /// reconnect and nothing more).
        let counted: Bool

        init(_ report: CloseReport) {
            cause = SIPWebSocketLink.cause(report)
            if case .handshakeFailed = report.cause { refused = true } else { refused = false }
            counted = report.cause != .transport
        }

        /// A 101 that did not choose `sip` (RFC 7118 §4: the client must not carry SIP on it).
        static let noSIPSubprotocol = Ending(cause: "ws_handshake", refused: true, counted: true)

        private init(cause: String, refused: Bool, counted: Bool) {
            self.cause = cause
            self.refused = refused
            self.counted = counted
        }
    }

    private(set) var connection: ClientConnection
    /// SIP messages queued before the Upgrade was answered, sent in order once it is.
    private var waiting: [[UInt8]] = []

    /// `host`/`port`: the proxy (the Upgrade's Host); `seed`: the key and every mask key (replayable runs, as the
    /// devices' sockets do).
    init(host: String, port: Int, secure: Bool, seed: UInt64) throws(HandshakeError) {
        let url = WebSocketURL(secure: secure, host: host, port: port, resource: "/")
        connection = try ClientConnection(url: url, headers: [("Sec-WebSocket-Protocol", "sip")],
                                          random: SeededRandom(seed: seed), maxMessageBytes: 1 << 16)
    }

    var isOpen: Bool { connection.state == .open }

    /// Queues one SIP message: a text frame when it is UTF-8 (every message callstorm writes), else a binary one
    /// (RFC 7118 §5.1 allows either); before the Upgrade is answered it waits.
    mutating func send(_ message: [UInt8]) {
        guard connection.state == .open else {
            if connection.state == .connecting { waiting.append(message) }
            return
        }
        if UTF8Validation.isValid(message) {
            try? connection.send(text: String(decoding: message, as: UTF8.self))
        } else {
            try? connection.send(binary: message)
        }
    }

    /// Takes the bytes to write to the socket (the Upgrade, frames, pongs, a close echo).
    mutating func takeOutbound() -> [UInt8] {
        let bytes = connection.outbound
        connection.didWrite(bytes.count)
        return bytes
    }

    /// Feeds bytes read from the connection; pings are answered by the connection (the pong is in
    /// `takeOutbound`), pongs dropped.
    mutating func receive(_ bytes: UnsafeRawBufferPointer) -> [Outcome] {
        var outcomes: [Outcome] = []
        for event in connection.receive(bytes) {
            switch event {
            case .opened:
                // RFC 7118 §4: a server that did not choose `sip` does not speak SIP on this connection.
                guard connection.subprotocol?.lowercased() == "sip" else {
                    _ = connection.abort()
                    outcomes.append(.closed(.noSIPSubprotocol))
                    return outcomes
                }
                outcomes.append(.opened)
                let queued = waiting
                waiting = []
                for message in queued { send(message) }
            case .message(.text(let text)): outcomes.append(.message(Array(text.utf8)))
            case .message(.binary(let payload)): outcomes.append(.message(payload))
            case .message, .pong: continue
            case .closed(let report): outcomes.append(.closed(Ending(report)))
            }
        }
        return outcomes
    }

    /// The socket ended under it: a lost connection, or a refused Upgrade when it ended mid-handshake.
    mutating func transportClosed() -> Ending? {
        guard case .closed(let report)? = connection.transportClosed() else { return nil }
        return Ending(report)
    }

    /// The `SIPCounters.transportFailures` cause a connection's end is counted under: `ws_handshake` (the
    /// Upgrade refused or broken: a status other than 101, a wrong Sec-WebSocket-Accept, no `sip` subprotocol
    /// chosen, the connection closed before the answer), `ws_close_<code>` (the
    /// proxy closed with that code), `ws_protocol` (it broke RFC 6455), `ws_lost` (the TCP or TLS stream ended
    /// without a close).
    static func cause(_ report: CloseReport) -> String {
        switch report.cause {
        case .handshakeFailed: return "ws_handshake"
        case .remote, .local: return "ws_close_\(report.code.rawValue)"
        case .protocolError: return "ws_protocol"
        default: return "ws_lost"
        }
    }
}
