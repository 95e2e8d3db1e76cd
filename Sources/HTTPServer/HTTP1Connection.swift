import Bytes
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// One accepted HTTP/1.1 connection: its socket, read and write buffers, parser, and the queue of requests
/// awaiting answers in the order they arrived.
///
/// Thread rule: every method must be called on the owning `EventLoop`'s thread; the loop holds the only
/// strong reference. Handlers never see this object — their `respond` goes through `ResponseSink` and the
/// loop's mailbox, so a connection that closed meanwhile simply drops the answer.
/// More than 15 stored properties on purpose: a connection's state is read on every event of the loop's hot path,
/// and grouping it into sub-objects would add a pointer hop (and ARC traffic) per event for no gain in meaning.
final class HTTP1Connection: StreamConnection {
    /// A request handed to the handler whose answer is not yet written.
    private struct Pending {
        var response: HTTPResponse?
        var framing: HTTP1ResponseEncoder.Framing
        /// The server's own rejection: after it, drain the client's input before closing (see `linger`).
        var isRejection: Bool
    }

    let fd: Int32
    let id: UInt64
    let stream: ByteStream
    unowned let loop: EventLoop
    var isClosed = false
    /// Set while the connection sits in the loop's list of connections to make progress on.
    var isDirty = false

    private var parser: HTTP1RequestParser
    /// Bytes read but not yet parsed. Usually empty: reads are parsed straight from the loop's scratch buffer
    /// and only an unfinished remainder is copied here.
    private var readBuffer = ByteQueue()
    private var writeBuffer = ByteQueue()

    private var pending: [Pending] = []
    private var pendingHead = 0
    /// Sequence number of `pending[pendingHead]`; sequence numbers count requests on this connection.
    private var firstSequence: UInt64 = 0
    private var nextSequence: UInt64 = 0

    /// A request's head asked for `100 Continue` and its body has not started arriving.
    private var continueWanted = false
    /// No more requests are parsed: one asked to close, or the stream was malformed.
    private var stopParsing = false
    /// The final response has been serialised; close once it is written.
    private var closeAfterWrite = false
    private var lingerAfterWrite = false
    private var lingerDeadline: UInt64?
    private var lingerDiscarded = 0
    private var peerClosed = false
    /// The last request asked to switch to WebSocket: parsing waits for its answer, since the bytes after it
    /// may be frames. A 101 hands the socket over; any other answer resumes HTTP.
    private var awaitingUpgrade = false
    private var interest: UInt32 = CLINUX_EPOLLIN
    private var lastActivity: UInt64

    init(fd: Int32, id: UInt64, loop: EventLoop, stream: ByteStream) {
        self.fd = fd
        self.id = id
        self.stream = stream
        self.loop = loop
        self.parser = HTTP1RequestParser(maxHeaderBytes: loop.limits.maxHeaderBytes, maxBodyBytes: loop.limits.maxBodyBytes)
        self.lastActivity = loop.now
    }

    /// Takes over from `ConnectionStart`: parses the bytes it already read, then reads on.
    func start(initial: [UInt8]) {
        readBuffer = ByteQueue(initial)
        makeProgress()
        if !isClosed && wantsToRead { handleEvents(CLINUX_EPOLLIN) }
    }

    private var unanswered: Int { pending.count - pendingHead }
    private var hasUnsentBytes: Bool { !writeBuffer.isEmpty }

    // MARK: - Events

    /// Reacts to what epoll reported for this socket: an error or hang-up ends it at once, even with bytes still
    /// readable (see `HangUpRule.endAtOnce`).
    func handleEvents(_ events: UInt32) {
        handleEvents(events, onHangUp: .endAtOnce)
    }

    /// Reset or fully shut down: nothing more can be written, so pending answers are moot.
    func hangUp() {
        loop.closeConnection(self)
    }

    /// Reads what the socket has (a bounded amount per event, for fairness) and parses it.
    func readIn() {
        switch loop.readChunks(from: stream, limit: 4, { take($0) }) {
        case .closed?: peerClosed = true
        case .error?: loop.closeConnection(self)
        case .bytes?, .wouldBlock?, nil: break
        }
    }

    /// Parses one chunk read (discards it while lingering); returns whether to read again.
    private func take(_ chunk: UnsafeBufferPointer<UInt8>) -> Bool {
        lastActivity = loop.now
        if lingerDeadline != nil {
            lingerDiscarded += chunk.count
            if lingerDiscarded > 1 << 20 {
                loop.closeConnection(self)
                return false
            }
            return true
        }
        // Input after a closing request or a rejection is never parsed.
        if stopParsing { return false }
        if readBuffer.isEmpty {
            let used = consume(chunk)
            if used < chunk.count && !stopParsing {
                readBuffer.append(UnsafeBufferPointer(rebasing: chunk[used...]))
            }
        } else {
            readBuffer.append(chunk)
            consumeBuffered()
        }
        return wantsToRead && EventLoop.filledScratch(chunk)
    }

    /// Parses buffered input that an earlier pause left behind.
    private func consumeBuffered() {
        guard !readBuffer.isEmpty, !stopParsing else { return }
        let used = readBuffer.withReadableBuffer { consume($0) }
        if stopParsing {
            readBuffer.removeAll(keepingCapacityUpTo: 4096)
        } else {
            readBuffer.consume(used, keepingCapacityUpTo: 4096, compactingAt: 16 * 1024)
        }
    }

    /// Parses requests from `input` and hands each to the handler; returns the bytes consumed. Stops early
    /// when too many answers are outstanding, leaving the rest for later.
    private func consume(_ input: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        // New bytes after a head that expected `100 Continue` can only be its body: the client stopped
        // waiting, so the interim response is no longer useful.
        if continueWanted && input.count > 0 { continueWanted = false }
        while !stopParsing && !awaitingUpgrade && unanswered < loop.limits.maxPipelinedRequests {
            switch parser.next(input, &index) {
            case .needMore:
                return index
            case .expectContinue:
                // Only worth sending if the client is actually waiting, i.e. no body byte is here yet.
                continueWanted = index == input.count
            case .request(let request):
                continueWanted = false
                loop.counters.requests.add(1, ordering: .relaxed)
                dispatch(request)
            case .failure(let error):
                continueWanted = false
                loop.counters.badRequests.add(1, ordering: .relaxed)
                reject(error)
                return index
            }
        }
        return index
    }

    private func dispatch(_ parsed: HTTP1ParsedRequest) {
        let sequence = nextSequence
        nextSequence += 1
        let framing = HTTP1ResponseEncoder.Framing(
            close: !parsed.keepAlive, echoKeepAlive: parsed.echoKeepAlive, omitBody: parsed.isHead)
        pending.append(Pending(response: nil, framing: framing, isRejection: false))
        if !parsed.keepAlive { stopParsing = true }
        if parsed.headers.firstValue(named: "upgrade") != nil { awaitingUpgrade = true }
        var request = HTTPRequest(
            method: parsed.method, path: parsed.target, headers: parsed.headers, body: parsed.body, connectionID: id)
        request.receivedNanos = loop.now
        request.version = .http1_1
        stream.stamp(&request)
        let sink = ResponseSink(loop: loop, fd: fd, connectionID: id, sequence: sequence)
        loop.handler.handle(request) { response in sink.send(response) }
    }

    /// Queues the server's own error answer behind any earlier answers; the connection closes after it.
    private func reject(_ error: HTTP1ParseError) {
        nextSequence += 1
        let framing = HTTP1ResponseEncoder.Framing(close: true, echoKeepAlive: false, omitBody: false)
        pending.append(Pending(
            response: HTTP1ResponseEncoder.errorResponse(error.status), framing: framing, isRejection: true))
        // The read buffer is dropped by the caller: this runs while it may be borrowed for parsing.
        stopParsing = true
    }

    // MARK: - Answers

    /// Records the answer for request `sequence`; returns whether it was accepted (false for a duplicate or
    /// for a request the connection has already given up on).
    func store(_ sequence: UInt64, _ response: HTTPResponse) -> Bool {
        guard sequence >= firstSequence, sequence < nextSequence else { return false }
        let slot = pendingHead + Int(sequence - firstSequence)
        guard slot < pending.count, pending[slot].response == nil else { return false }
        pending[slot].response = response
        return true
    }

    /// Writes every answer that is next in line, sends `100 Continue` when due, resumes parsing after a
    /// pause, decides whether to close, and updates the epoll interest to match.
    func makeProgress() {
        while !isClosed {
            if let handOver = serialiseReadyAnswers() {
                switchToWebSocket(handOver)
                return
            }
            if continueWanted && unanswered == 0 && !closeAfterWrite {
                continueWanted = false
                writeBuffer.append(HTTP1ResponseEncoder.continueResponse)
            }
            if hasUnsentBytes {
                writeOut()
                if isClosed { return }
            }
            if !hasUnsentBytes && closeAfterWrite {
                if lingerAfterWrite { linger() } else { loop.closeConnection(self) }
                if isClosed { return }
            }
            // A pause (pipelining depth or write backlog) may have ended: parse what is buffered. Synchronous
            // answers land in the loop's local queue and come back through `store`, so this cannot recurse.
            if wantsToParse && !readBuffer.isEmpty {
                let before = nextSequence
                consumeBuffered()
                // New requests, or a rejection that is answered at once: go round again.
                if nextSequence != before { continue }
            }
            // After EOF, once everything is answered, whatever is still buffered is an incomplete request.
            if !hasUnsentBytes && peerClosed && unanswered == 0 {
                loop.closeConnection(self)
                return
            }
            break
        }
        if !isClosed { updateInterest() }
    }

    /// Writes ready answers into the write buffer; returns the hand-over when one was a WebSocket's 101.
    private func serialiseReadyAnswers() -> WebSocketHandOver? {
        while pendingHead < pending.count, let response = pending[pendingHead].response {
            if let handOver = response.webSocket, awaitingUpgrade, pendingHead + 1 == pending.count {
                writeBuffer.appending { WebSocketUpgrade.appendHead(response, to: &$0) }
                pending.removeAll()
                pendingHead = 0
                return handOver
            }
            var framing = pending[pendingHead].framing
            let isRejection = pending[pendingHead].isRejection
            if !framing.close && (response.goAway || HTTP1ResponseEncoder.requestsClose(response)) {
                framing.close = true
            }
            writeBuffer.appending { HTTP1ResponseEncoder.append(response, framing: framing, to: &$0) }
            pending[pendingHead].response = nil
            pendingHead += 1
            firstSequence += 1
            if framing.close {
                // Answers to requests pipelined behind this one are never written.
                closeAfterWrite = true
                lingerAfterWrite = isRejection
                stopParsing = true
                pending.removeAll()
                pendingHead = 0
                firstSequence = nextSequence
                break
            }
        }
        if pendingHead == pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingHead = 0
            awaitingUpgrade = false
        } else if pendingHead >= 32 {
            pending.removeFirst(pendingHead)
            pendingHead = 0
        }
        return nil
    }

    /// Gives the socket, the unsent 101 head and any bytes read after the request to a WebSocket connection.
    private func switchToWebSocket(_ handOver: WebSocketHandOver) {
        let unsent = writeBuffer.takeAll()
        let unread = readBuffer.takeAll()
        let next = WebSocketServerConnection(fd: fd, id: id, loop: loop, stream: stream, handOver: handOver,
                                             unsent: unsent)
        loop.replace(self, with: next)
        next.start(initial: unread)
    }

    /// Sends as much of the write buffer as the socket takes; EPOLLOUT interest covers the rest.
    func writeOut() {
        let flush = stream.flush(&writeBuffer, keepingCapacityUpTo: 16 * 1024)
        if flush.progressed { lastActivity = loop.now }
        if flush.failed { loop.closeConnection(self) }
    }

    // MARK: - Interest and closing

    private var wantsToParse: Bool {
        !stopParsing && !awaitingUpgrade && unanswered < loop.limits.maxPipelinedRequests
            && writeBuffer.count < loop.limits.writeHighWaterBytes
    }

    private var wantsToRead: Bool {
        if lingerDeadline != nil { return true }
        return wantsToParse && !peerClosed
    }

    private func updateInterest() {
        var wanted: UInt32 = 0
        if wantsToRead { wanted |= CLINUX_EPOLLIN }
        if hasUnsentBytes { wanted |= CLINUX_EPOLLOUT }
        if wanted != interest {
            interest = wanted
            _ = clinux_epoll_ctl(loop.epollFD, 3, fd, wanted, UInt64(fd))
        }
    }

    /// After rejecting a request, the client may still be sending the rest of it; closing with unread input
    /// makes the kernel send RST, which can destroy the error response before the client reads it. So shut
    /// down the sending side and discard input until the client closes, a byte cap, or a deadline.
    private func linger() {
        if peerClosed {
            loop.closeConnection(self)
            return
        }
        guard lingerDeadline == nil else { return }
        shutdown(fd, Int32(SHUT_WR))
        lingerDeadline = loop.now &+ loop.limits.lingerNanoseconds
        readBuffer = ByteQueue()
    }

    /// Called by the loop's periodic sweep: enforces the idle timeout and the linger deadline.
    func checkTimers() {
        let now = loop.now
        if let deadline = lingerDeadline {
            if now >= deadline { loop.closeConnection(self) }
            return
        }
        // A request still with its handler is not idle, however long the handler takes.
        if unanswered == 0 && now &- lastActivity >= loop.limits.idleTimeoutNanoseconds && now >= lastActivity {
            loop.closeConnection(self)
        }
    }
}
