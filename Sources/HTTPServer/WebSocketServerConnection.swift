import Bytes
import CLinux
import WebSocket
#if canImport(Glibc)
import Glibc
#endif

/// One server-side WebSocket, after an HTTP/1.1 connection switched protocols: reads client frames (which
/// must be masked), answers pings, runs the closing handshake, and writes what `WebSocketPeer` handles queue.
///
/// Thread rule: loop thread only, like every `LoopConnection`. No idle timeout: an open socket that says
/// nothing is the normal case for an event channel; only a closing handshake has a deadline (the loop's
/// linger time).
// limits: 16 stored properties, like HTTP1Connection's: the socket's state is read on every event of the loop's hot
// path, and sub-objects would add a pointer hop (and ARC traffic) per event for no gain in meaning.
final class WebSocketServerConnection: StreamConnection {
    let fd: Int32
    let id: UInt64
    let stream: ByteStream
    unowned let loop: EventLoop
    var isClosed = false
    var isDirty = false

    private let session: any WebSocketSession
    private let peer: WebSocketPeer
    private var reader: MessageReader
    private var writeBuffer: ByteQueue
    private var sentClose = false
    /// The close report to give once the last bytes are written.
    private var closeAfterWrite: CloseReport?
    private var closeDeadline: UInt64?
    private var reported = false
    /// Unknown at hand-over (the HTTP/1.1 connection may have dropped read interest while it waited for the
    /// 101), so the first `makeProgress` always sets it.
    private var interest: UInt32 = .max

    init(fd: Int32, id: UInt64, loop: EventLoop, stream: ByteStream, handOver: WebSocketHandOver,
         unsent: [UInt8]) {
        self.fd = fd
        self.id = id
        self.loop = loop
        self.stream = stream
        self.session = handOver.session
        self.peer = WebSocketPeer(loop: loop, fd: fd, request: handOver.request)
        self.reader = MessageReader(role: .server, maxMessageBytes: loop.limits.maxBodyBytes)
        self.writeBuffer = ByteQueue(unsent)
    }

    /// Takes over the socket: tells the session, then handles bytes the client sent after its request.
    func start(initial: [UInt8]) {
        session.opened(peer)
        if !initial.isEmpty {
            reader.append(initial)
            drain()
        }
        guard !isClosed else { return }
        makeProgress()
        if !isClosed { handleEvents(CLINUX_EPOLLIN) }
    }

    /// Reacts to what epoll reported for this socket: with bytes still readable, an error or hang-up is read
    /// first (see `HangUpRule.readFirst`: the client's last bytes may be its close frame).
    func handleEvents(_ events: UInt32) {
        handleEvents(events, onHangUp: .readFirst)
    }

    func hangUp() {
        finish(CloseReport(cause: .transport, code: .abnormal, reason: ""))
    }

    func readIn() {
        let end = loop.readChunks(from: stream, limit: 4) { chunk in
            reader.append(UnsafeRawBufferPointer(chunk))
            drain()
            return !isClosed && closeAfterWrite == nil && EventLoop.filledScratch(chunk)
        }
        switch end {
        case .closed?, .error?:
            finish(CloseReport(cause: sentClose ? .local : .transport, code: .abnormal, reason: ""))
        case .bytes?, .wouldBlock?, nil:
            break
        }
    }

    /// Hands every complete message to the session and answers control frames.
    private func drain() {
        while closeAfterWrite == nil && !isClosed {
            let message: Message?
            do {
                message = try reader.next()
            } catch {
                queueClose(error.closeCode, reason: error.kind)
                endAfterWrite(CloseReport(cause: .protocolError(error), code: error.closeCode,
                                          reason: error.description))
                return
            }
            guard let message else { return }
            switch message {
            case .text, .binary: session.received(message, from: peer)
            case .ping(let payload):
                if !sentClose { writeBuffer.appending { FrameEncoder.append(.pong, payload: payload, to: &$0) } }
            case .pong: break
            case .close(let code, let reason):
                let initiatedHere = sentClose
                if !sentClose { queueClose(code, reason: "") }
                endAfterWrite(CloseReport(cause: initiatedHere ? .local : .remote, code: code ?? .noStatus,
                                          reason: reason))
            }
        }
    }

    /// Closes once the last bytes (a close frame) are written, or at the linger deadline if the client does not
    /// take them.
    private func endAfterWrite(_ report: CloseReport) {
        closeAfterWrite = report
        closeDeadline = closeDeadline ?? loop.now &+ loop.limits.lingerNanoseconds
    }

    private func queueClose(_ code: CloseCode?, reason: String) {
        guard !sentClose else { return }
        sentClose = true
        let payload = code.map { FrameEncoder.closePayload($0, reason: reason) } ?? []
        writeBuffer.appending { FrameEncoder.append(.close, payload: payload, to: &$0) }
    }

    /// Frames from a `WebSocketPeer` (the delivery's sequence says which kind).
    func store(_ sequence: UInt64, _ response: HTTPResponse) -> Bool {
        guard !isClosed, let kind = WebSocketPeer.Outbound(rawValue: sequence) else { return false }
        switch kind {
        case .frames:
            guard !sentClose else { return false }
            // A client that stopped reading would make the server hold every event for it: drop it instead.
            guard writeBuffer.count <= 4 * loop.limits.writeHighWaterBytes else {
                finish(CloseReport(cause: .aborted, code: .abnormal, reason: "client stopped reading"))
                return false
            }
            writeBuffer.append(response.body)
        case .close:
            guard !sentClose else { return false }
            sentClose = true
            writeBuffer.append(response.body)
            closeDeadline = loop.now &+ loop.limits.lingerNanoseconds
        case .abort:
            writeBuffer = ByteQueue()
            closeAfterWrite = CloseReport(cause: .aborted, code: .abnormal, reason: "")
        }
        return true
    }

    func makeProgress() {
        guard !isClosed else { return }
        if !writeBuffer.isEmpty { writeOut() }
        if isClosed { return }
        if writeBuffer.isEmpty, let report = closeAfterWrite {
            finish(report)
            return
        }
        var wanted: UInt32 = CLINUX_EPOLLIN
        if !writeBuffer.isEmpty { wanted |= CLINUX_EPOLLOUT }
        if wanted != interest {
            interest = wanted
            _ = clinux_epoll_ctl(loop.epollFD, 3, fd, wanted, UInt64(fd))
        }
    }

    /// Sends what the socket takes; an idle socket keeps no write buffer.
    func writeOut() {
        if stream.flush(&writeBuffer, keepingCapacityUpTo: 0).failed {
            finish(closeAfterWrite ?? CloseReport(cause: .transport, code: .abnormal, reason: ""))
        }
    }

    func checkTimers() {
        if let deadline = closeDeadline, loop.now >= deadline {
            finish(closeAfterWrite
                   ?? CloseReport(cause: .local, code: .abnormal, reason: "no close frame from the client in time"))
        }
    }

    private func finish(_ report: CloseReport) {
        guard !reported else { return }
        reported = true
        session.closed(peer, report)
        loop.closeConnection(self)
    }
}
