import WebSocket

/// What a handler gives the server to serve one accepted WebSocket: told when the socket opens, each message,
/// and how it ended.
///
/// Thread rules: every call comes on the connection's event-loop thread and must not block it. The
/// `WebSocketPeer` it is handed may be kept and used from any thread.
public protocol WebSocketSession: AnyObject, Sendable {
    func opened(_ peer: WebSocketPeer)
    /// A whole text or binary message (fragments joined, text checked as UTF-8).
    func received(_ message: Message, from peer: WebSocketPeer)
    /// Once per socket, whatever ended it (a closing handshake, a protocol error, a lost connection).
    func closed(_ peer: WebSocketPeer, _ report: CloseReport)
}

/// A handle on one server-side WebSocket for sending to it from any thread. Frames are encoded on the
/// caller's thread and travel to the loop through its response mailbox (the delivery's `sequence` says what
/// they are), so a handle outliving its socket just has its frames dropped.
public final class WebSocketPeer: Sendable {
    /// Outbound kinds, carried as the delivery's sequence number.
    enum Outbound: UInt64 {
        case frames = 0
        case close = 1
        case abort = 2
    }

    /// The connection's id, as `HTTPRequest.connectionID` and `HTTPHandler.connectionClosed` know it.
    public let id: UInt64
    /// The request that opened the socket (path, query and headers: who is on the other end).
    public let request: HTTPRequest
    private let loop: EventLoop
    private let fd: Int32

    init(loop: EventLoop, fd: Int32, request: HTTPRequest) {
        self.loop = loop
        self.fd = fd
        self.id = request.connectionID
        self.request = request
    }

    /// Queues a text message (one unmasked frame, as a server sends).
    public func send(text: String) {
        deliver(.frames, FrameEncoder.frame(.text, Array(text.utf8)))
    }

    public func send(binary: [UInt8]) {
        deliver(.frames, FrameEncoder.frame(.binary, binary))
    }

    /// Bytes written as they are, after what was queued before: for tests and faults that must send what a
    /// correct server never would.
    public func send(raw: [UInt8]) {
        deliver(.frames, raw)
    }

    /// Starts the closing handshake; the socket closes when the client answers, or after the loop's linger time.
    public func close(_ code: CloseCode = .normal, reason: String = "") {
        deliver(.close, FrameEncoder.frame(.close, FrameEncoder.closePayload(code, reason: reason)))
    }

    /// Drops the connection with no close frame (the client sees a lost socket).
    public func abort() {
        deliver(.abort, [])
    }

    private func deliver(_ kind: Outbound, _ bytes: [UInt8]) {
        loop.deliver(EventLoop.Delivery(fd: fd, connectionID: id, sequence: kind.rawValue,
                                        response: HTTPResponse(status: 200, body: bytes)))
    }
}

/// Accepting the HTTP/1.1 Upgrade (RFC 6455 §4.2): a handler calls `accept` from `handle` and responds with
/// what it returns; the connection then speaks WebSocket frames to `session`.
public enum WebSocketUpgrade {
    /// Whether the request asks for a WebSocket (so a handler can route it before checking it).
    public static func isRequested(_ request: HTTPRequest) -> Bool {
        request.header("upgrade")?.lowercased() == "websocket"
    }

    /// 101 Switching Protocols bound to `session` when the request is a valid opening handshake; otherwise the
    /// error answer RFC 6455 asks for (400, or 426 with the supported version), which closes the connection.
    public static func accept(_ request: HTTPRequest, session: any WebSocketSession,
                              headers: [HTTPHeader] = []) -> HTTPResponse {
        guard request.version == .http1_1, request.method == "GET" else {
            return refuse(400, "WebSocket needs GET over HTTP/1.1")
        }
        guard isRequested(request), Handshake.hasToken(request.header("connection") ?? "", "upgrade") else {
            return refuse(400, "missing Upgrade: websocket / Connection: Upgrade")
        }
        guard request.header("sec-websocket-version") == "13" else {
            return refuse(426, "only Sec-WebSocket-Version 13", extra: [HTTPHeader(name: "sec-websocket-version",
                                                                                   value: "13")])
        }
        guard let key = request.header("sec-websocket-key"), key.utf8.count == 24 else {
            return refuse(400, "missing or malformed Sec-WebSocket-Key")
        }
        // Canonical capitalisation: names are case-insensitive, but some hand-written clients compare them as sent.
        var all = [HTTPHeader(name: "Upgrade", value: "websocket"), HTTPHeader(name: "Connection", value: "Upgrade"),
                   HTTPHeader(name: "Sec-WebSocket-Accept", value: Handshake.accept(forKey: key))]
        all.append(contentsOf: headers)
        var response = HTTPResponse(status: 101, headers: all)
        response.webSocket = WebSocketHandOver(session: session, request: request)
        return response
    }

    private static func refuse(_ status: Int, _ message: String, extra: [HTTPHeader] = []) -> HTTPResponse {
        .text(status, message + "\n", headers: extra + [HTTPHeader(name: "connection", value: "close")])
    }

    /// The 101 head, written by hand: the HTTP/1.1 encoder frames only final answers (200–999) with a body.
    static func appendHead(_ response: HTTPResponse, to buffer: inout [UInt8]) {
        var text = "HTTP/1.1 101 Switching Protocols\r\n"
        for header in response.headers { text += "\(header.name): \(header.value)\r\n" }
        buffer.append(contentsOf: Array((text + "\r\n").utf8))
    }
}

/// What a 101 answer carries to the connection that switches protocols.
public struct WebSocketHandOver: Sendable {
    let session: any WebSocketSession
    let request: HTTPRequest
}
