import CLinux
import CSSL
#if canImport(Glibc)
import Glibc
#endif

/// Readiness: connecting, TLS, writing requests, reading responses, deadlines.
extension WireClient {
    func handle(_ fd: Int32, _ events: UInt32) {
        guard Int(fd) < byFD.count, let connection = byFD[Int(fd)] else { return }
        switch connection.phase {
        case .connecting:
            let error = clinux_socket_error(fd)
            guard error == 0 else {
                let origin = connection.pool.origin
                return fail(connection, error == ECONNREFUSED ? .refused(host: origin.host, port: origin.port)
                            : .connectFailed(host: origin.host, port: origin.port, errno: error))
            }
            // A stale event of an earlier socket with this fd number must not pass for "connected".
            guard Self.isConnected(fd) else { return }
            if connection.stream.tls != nil {
                connection.phase = .tlsHandshake
                stepTLS(connection)
            } else {
                becomeReady(connection)
            }
        case .tlsHandshake:
            stepTLS(connection)
        case .ready:
            if events & CLINUX_EPOLLOUT != 0 {
                flush(connection)
                guard byFD[Int(fd)] === connection else { return }
            }
            if events & (CLINUX_EPOLLIN | CLINUX_EPOLLERR | CLINUX_EPOLLHUP) != 0 { readIn(connection) }
        }
    }

    private func stepTLS(_ connection: WireConnection) {
        guard let session = connection.stream.tls else { return }
        switch cssl_handshake(session) {
        case 1:
            becomeReady(connection)
        case 0:
            // ClientHello went out with the first step; from here the handshake waits on the server.
            setInterest(connection, CLINUX_EPOLLIN)
        default:
            fail(connection, .tls(Self.lastTLSError()))
        }
    }

    private func becomeReady(_ connection: WireConnection) {
        connection.phase = .ready
        guard let exchange = connection.exchange else {
            setInterest(connection, CLINUX_EPOLLIN)
            return release(connection)
        }
        connection.deadline = exchange.deadline
        write(connection, exchange.request.bytes)
    }

    // MARK: - Writing

    /// Sends a request straight from its bytes; only what the socket does not take is copied to `outbound`.
    /// Bytes still waiting there go first: the new ones queue behind them.
    func write(_ connection: WireConnection, _ bytes: [UInt8]) {
        guard connection.outbound.isEmpty else {
            connection.outbound.append(bytes)
            return flush(connection)
        }
        let result = bytes.withUnsafeBytes { connection.stream.write($0) }
        switch result {
        case .bytes(let count) where count == bytes.count:
            setInterest(connection, CLINUX_EPOLLIN)
        case .bytes(let count):
            connection.outbound.append(Array(bytes[count...]))
            setInterest(connection, CLINUX_EPOLLIN | CLINUX_EPOLLOUT)
        case .wouldBlock:
            connection.outbound.append(bytes)
            setInterest(connection, CLINUX_EPOLLIN | CLINUX_EPOLLOUT)
        case .closed, .error:
            endOfStream(connection)
        }
    }

    private func flush(_ connection: WireConnection) {
        let drain = connection.stream.flush(&connection.outbound, keepingCapacityUpTo: 0)
        if drain.failed { return endOfStream(connection) }
        setInterest(connection, drain.stoppedBy == nil ? CLINUX_EPOLLIN : CLINUX_EPOLLIN | CLINUX_EPOLLOUT)
    }

    // MARK: - Reading

    private func readIn(_ connection: WireConnection) {
        let base = scratch.baseAddress!
        while true {
            switch connection.stream.read(into: base, count: scratch.count) {
            case .bytes(let count):
                guard connection.exchange != nil else {
                    // An idle connection has nothing to read but its end; anything else is unasked for.
                    return close(connection)
                }
                let complete: Bool
                do {
                    complete = try connection.parser.feed(UnsafeRawBufferPointer(start: base, count: count))
                } catch {
                    if case .bodyTooLarge(let limit) = error {
                        return fail(connection, .responseTooLarge(limit: limit))
                    }
                    return fail(connection, .malformed(error))
                }
                if complete { return finish(connection, streamEnded: false) }
                // A short read emptied the socket: epoll says when more comes, one read sooner than asking.
                if count < scratch.count && connection.stream.tls == nil { return }
            case .wouldBlock:
                return
            case .closed:
                return endOfStream(connection)
            case .error:
                // A reset is not an end: a response framed by the connection's end is cut, not complete.
                return endOfStream(connection, reset: true)
            }
        }
    }

    /// The server closed the connection (or a read or write failed): the end of a response framed by it, a
    /// retry of a request a reused connection never answered, or a failure naming where the response stopped.
    private func endOfStream(_ connection: WireConnection, reset: Bool = false) {
        guard let exchange = connection.exchange else { return close(connection) }
        do {
            if connection.parser.receivedAny && reset {
                return fail(connection, .connectionClosed("by a reset, in the middle of the response"))
            }
            if try connection.parser.finishAtEndOfStream() { return finish(connection, streamEnded: true) }
        } catch {
            if case .truncated(let part) = error { return fail(connection, .connectionClosed(part)) }
            return fail(connection, .malformed(error))
        }
        if connection.served > 0 && !exchange.retried {
            // Keep-alive race: the server closed an idle connection as the request went out.
            close(connection)
            stats.retried += 1
            var again = exchange
            again.retried = true
            return start(again)
        }
        fail(connection, .connectionClosed("before any byte of the response"))
    }

    /// Completes the exchange; the connection goes back to its pool when the response allows reuse.
    private func finish(_ connection: WireConnection, streamEnded: Bool) {
        // Moved out, not copied: a copy retained and released the request's bytes, origin and completion.
        guard let exchange = connection.exchange.take() else { return }
        let response = connection.parser.takeResponse()
        // An early answer (a 413 or 401 before the body went out) leaves request bytes unsent: not reusable.
        let reusable = !streamEnded && connection.parser.keepAlive && connection.parser.excessBytes == 0
            && !exchange.request.freshConnection && connection.outbound.isEmpty
        connection.deadline = 0
        connection.served += 1
        if reusable { release(connection) } else { close(connection) }
        exchange.completion(.success(response))
    }

    // MARK: - Deadlines

    /// Makes the timer fire by `deadline`: a syscall only when that is sooner than it is armed for, so a steady
    /// stream of requests (each deadline later than the last) re-arms nothing.
    func arm(_ deadline: UInt64) {
        guard deadline != 0, timerAt == 0 || deadline < timerAt else { return }
        timerAt = deadline
        timer?.arm(atMonotonicNanos: deadline)
    }

    /// Fails every exchange past its deadline, then arms for the soonest left.
    func expire() {
        let now = clinux_monotonic_ns()
        timerAt = 0
        var late: [WireConnection] = []
        var next = UInt64.max
        for case let connection? in byFD where connection.deadline != 0 {
            if connection.deadline <= now { late.append(connection) } else { next = min(next, connection.deadline) }
        }
        for connection in late where connection.deadline != 0 && connection.deadline <= now {
            let opening = connection.phase != .ready
            let connectLimit = opening && connection.deadline < (connection.exchange?.deadline ?? .max)
            let millis = connectLimit ? configuration.connectTimeoutMillis
                : connection.exchange?.request.timeoutMillis ?? 0
            fail(connection, connectLimit ? .connectTimeout(millis: millis) : .responseTimeout(millis: millis))
        }
        if next != .max { arm(next) }
    }

    private static func isConnected(_ fd: Int32) -> Bool {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
    }

    private static func lastTLSError() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        cssl_last_error(&buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
