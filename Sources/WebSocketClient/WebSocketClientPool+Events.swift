import Bytes
import CLinux
import CSSL
import CSSLClient
import WebSocket
#if canImport(Glibc)
import Glibc
#endif

/// Readiness handling: connect, TLS, reading, writing, deadlines.
extension WebSocketClientPool {
    func handle(_ fd: Int32, _ events: UInt32) {
        guard Int(fd) < byFDCount, let socket = socket(at: fd) else { return }
        switch socket.phase {
        case .tcpConnecting:
            let error = clinux_socket_error(fd)
            guard error == 0 else {
                return finish(socket, CloseReport(cause: .connectFailed(error), code: .abnormal, reason: ""))
            }
            // A stale event of an earlier socket with this fd number (closed and reused within one batch, as a
            // reconnect from `onEvent` does) must not pass for "connected": ask the kernel.
            guard Self.isConnected(fd) else { return }
            if socket.tls != nil {
                socket.phase = .tlsHandshake
                stepTLS(socket)
            } else {
                socket.phase = .ready
                flush(socket)
            }
        case .tlsHandshake:
            stepTLS(socket)
        case .ready:
            if events & CLINUX_EPOLLOUT != 0 { flush(socket) }
            // A paused socket still reads on an error or hang-up (level-triggered epoll reports them anyway).
            let wanted = (socket.paused ? 0 : CLINUX_EPOLLIN) | CLINUX_EPOLLERR | CLINUX_EPOLLHUP
            if isLive(socket) && events & wanted != 0 { readIn(socket) }
        }
    }

    private func stepTLS(_ socket: ClientSocket) {
        guard let tls = socket.tls else { return }
        switch cssl_handshake(tls) {
        case 1:
            socket.phase = .ready
            flush(socket)
        case 0:
            // ClientHello goes out at once on a fresh socket; from here the handshake waits on the server.
            setInterest(socket, CLINUX_EPOLLIN)
        default:
            finish(socket, CloseReport(cause: .tlsFailed, code: .abnormal, reason: lastTLSError()))
        }
    }

    private func readIn(_ socket: ClientSocket) {
        for _ in 0..<4 {
            switch socket.stream.read(into: scratchBase, count: scratchCount) {
            case .bytes(let count):
                let events = socket.connection.receive(UnsafeRawBufferPointer(start: scratchBase, count: count))
                deliver(socket, events)
                guard isLive(socket) else { return }
                flush(socket)
                guard isLive(socket) else { return }
            case .wouldBlock:
                return
            case .closed, .error:
                return lost(socket)
            }
        }
    }

    /// The byte stream ended (end of stream, a failed read or write) without the closing handshake finishing.
    private func lost(_ socket: ClientSocket) {
        if let event = socket.connection.transportClosed() { deliver(socket, [event]) }
        if isLive(socket) { finish(socket, nil) }
    }

    /// Writes what the state machine queued; closes the socket once it is finished and drained.
    func flush(_ socket: ClientSocket) {
        guard socket.phase == .ready else { return }
        let stream = socket.stream
        let drain = socket.connection.drainOutbound { stream.write($0) }
        if drain.failed { return lost(socket) }
        if drain.stoppedBy != nil {
            setInterest(socket, socket.readInterest | CLINUX_EPOLLOUT)
            return
        }
        if socket.connection.isFinished {
            finish(socket, nil)
            return
        }
        if socket.connection.state == .open && socket.deadline != 0 { socket.deadline = 0 }
        setInterest(socket, socket.readInterest)
    }

    private func deliver(_ socket: ClientSocket, _ events: [ClientConnection.Event]) {
        for event in events {
            if case .closed(let report) = event {
                // The close frame (if any) still has to go out: finish after flushing.
                closing(socket, report)
            } else {
                emit(socket.id, event)
            }
        }
    }

    /// Once a second: gives idle TLS sessions' record buffers back (about 17 KB a socket, see cssl_client.h; per
    /// read instead it cost ~36 µs of CPU per message in ws-bench), and ends sockets that did not open or whose
    /// closing handshake stalled.
    func sweep() {
        let now = clinux_monotonic_ns()
        var late: [ClientSocket] = []
        forEachSocket { socket in
            if let tls = socket.tls, socket.phase == .ready, socket.connection.pendingBytes == 0 {
                _ = cssl_client_release_buffers(tls)
            }
            if socket.deadline != 0 && now >= socket.deadline { late.append(socket) }
        }
        late.sort { $0.id < $1.id }
        for socket in late {
            switch socket.connection.state {
            case .connecting:
                _ = socket.connection.abort()
                finish(socket, CloseReport(cause: .connectFailed(ETIMEDOUT), code: .abnormal, reason: "open timeout"))
            default:
                _ = socket.connection.abort()
                finish(socket, CloseReport(cause: .local, code: .abnormal, reason: "no close frame in time"))
            }
        }
        rearmSweep(now)
    }

    private static func isConnected(_ fd: Int32) -> Bool {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
    }

    private func lastTLSError() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        cssl_last_error(&buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
