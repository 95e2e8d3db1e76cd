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
final class WebSocketServerConnection: LoopConnection {
    let fd: Int32
    let id: UInt64
    let stream: ByteStream
    unowned let loop: EventLoop
    var isClosed = false
    var isDirty = false

    private let session: any WebSocketSession
    private let peer: WebSocketPeer
    private var reader: MessageReader
    private var writeBuffer: [UInt8]
    private var writeIndex = 0
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
        self.writeBuffer = unsent
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

    func handleEvents(_ events: UInt32) {
        if events & (CLINUX_EPOLLERR | CLINUX_EPOLLHUP) != 0 && events & CLINUX_EPOLLIN == 0 {
            finish(CloseReport(cause: .transport, code: .abnormal, reason: ""))
            return
        }
        if events & CLINUX_EPOLLOUT != 0 { writeOut() }
        if isClosed { return }
        if events & CLINUX_EPOLLIN != 0 { readIn() }
        if !isClosed { makeProgress() }
    }

    private func readIn() {
        let scratch = loop.readScratch
        for _ in 0..<4 {
            let count = stream.read(scratch.baseAddress!, scratch.count)
            if count > 0 {
                reader.append(UnsafeRawBufferPointer(start: scratch.baseAddress, count: count))
                drain()
                if isClosed || closeAfterWrite != nil || count < scratch.count { return }
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return
            } else {
                finish(CloseReport(cause: sentClose ? .local : .transport, code: .abnormal, reason: ""))
                return
            }
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
            case .ping(let payload): if !sentClose { FrameEncoder.append(.pong, payload: payload, to: &writeBuffer) }
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
        FrameEncoder.append(.close, payload: code.map { FrameEncoder.closePayload($0, reason: reason) } ?? [],
                            to: &writeBuffer)
    }

    /// Frames from a `WebSocketPeer` (the delivery's sequence says which kind).
    func store(_ sequence: UInt64, _ response: HTTPResponse) -> Bool {
        guard !isClosed, let kind = WebSocketPeer.Outbound(rawValue: sequence) else { return false }
        switch kind {
        case .frames:
            guard !sentClose else { return false }
            // A client that stopped reading would make the server hold every event for it: drop it instead.
            guard writeBuffer.count - writeIndex <= 4 * loop.limits.writeHighWaterBytes else {
                finish(CloseReport(cause: .aborted, code: .abnormal, reason: "client stopped reading"))
                return false
            }
            writeBuffer.append(contentsOf: response.body)
        case .close:
            guard !sentClose else { return false }
            sentClose = true
            writeBuffer.append(contentsOf: response.body)
            closeDeadline = loop.now &+ loop.limits.lingerNanoseconds
        case .abort:
            writeBuffer = []
            writeIndex = 0
            closeAfterWrite = CloseReport(cause: .aborted, code: .abnormal, reason: "")
        }
        return true
    }

    func makeProgress() {
        guard !isClosed else { return }
        if writeIndex < writeBuffer.count { writeOut() }
        if isClosed { return }
        if writeIndex >= writeBuffer.count, let report = closeAfterWrite {
            finish(report)
            return
        }
        var wanted: UInt32 = CLINUX_EPOLLIN
        if writeIndex < writeBuffer.count { wanted |= CLINUX_EPOLLOUT }
        if wanted != interest {
            interest = wanted
            _ = clinux_epoll_ctl(loop.epollFD, 3, fd, wanted, UInt64(fd))
        }
    }

    private func writeOut() {
        while writeIndex < writeBuffer.count {
            let sent = writeBuffer.withUnsafeBytes { stream.write($0.baseAddress! + writeIndex, $0.count - writeIndex) }
            if sent > 0 {
                writeIndex += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return
            } else {
                finish(closeAfterWrite ?? CloseReport(cause: .transport, code: .abnormal, reason: ""))
                return
            }
        }
        // An idle socket keeps no write buffer.
        writeBuffer = []
        writeIndex = 0
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
