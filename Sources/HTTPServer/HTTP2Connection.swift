import Bytes
import CLibnghttp2
import CLinux
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/2 connection on libnghttp2's session API: bytes read go to `nghttp2_session_mem_recv`, frames to
/// write come from `nghttp2_session_mem_send`, so framing, HPACK, flow control and the stream state machine are
/// nghttp2's and the socket (clear or TLS) stays ours.
///
/// Thread rule: loop thread only. nghttp2 calls back into this object (found through `user_data`) only from
/// inside `mem_recv`/`mem_send`, which run on the loop thread. Handlers answer through `ResponseSink` with the
/// stream id as the sequence; an answer for a stream that was reset meanwhile is dropped.
/// More than 15 stored properties on purpose: nghttp2's callbacks (C function pointers that capture nothing) must
/// all reach this one object through `user_data`, and a connection's state is read on every event of the loop's
/// hot path; grouping it into sub-objects would add a pointer hop (and ARC traffic) per event for no gain in
/// meaning. The response block layout and the reused field Strings are their own types (`HTTP2ResponseFields`,
/// `HTTP2FieldStrings`), each a stored property here.
final class HTTP2Connection: StreamConnection {
    /// A request stream being received, then waiting for its answer, then sending it.
    final class Stream {
        var method = ""
        var path = ""
        var scheme = ""
        var authority = ""
        var headers: [HTTPHeader] = []
        var headerBytes = 0
        /// Header fields received so far (pseudo-headers included): the field's slot in `fieldStrings`.
        var fields = 0
        var body: [UInt8] = []
        var bodyTooLarge = false
        var dispatched = false
        var answered = false
        /// The answer's body bytes nghttp2 has not framed yet.
        var responseBody = ByteQueue()
    }

    let fd: Int32
    let id: UInt64
    let stream: ByteStream
    unowned let loop: EventLoop
    /// The loop's limits and counters, held here: reached through the unowned `loop` on every header field,
    /// each read cost a strong retain and a release.
    private let limits: EventLoop.Limits
    let counters: HTTPServerCounters
    var isClosed = false
    var isDirty = false

    private var session: OpaquePointer?
    private(set) var streams: [Int32: Stream] = [:]
    private var writeBuffer = ByteQueue()
    /// Scratch for `submit`, kept between responses so answering a stream allocates no header arrays.
    private var responseFields = HTTP2ResponseFields()
    /// The last request's field Strings, reused when the next request repeats them byte for byte.
    private let fieldStrings = HTTP2FieldStrings()
    private var lastActivity: UInt64
    private var interest: UInt32 = CLINUX_EPOLLIN
    private var peerClosed = false
    /// nghttp2 refused the peer's bytes: flush its GOAWAY, then close.
    private var failed = false
    /// A handler asked for a graceful GOAWAY (`HTTPResponse.goAway`): when the notice went out, and whether the
    /// final GOAWAY has.
    private var goAwayNoticeAt: UInt64?
    private var sentFinalGoAway = false

    init(fd: Int32, id: UInt64, loop: EventLoop, stream: ByteStream) {
        self.fd = fd
        self.id = id
        self.stream = stream
        self.loop = loop
        self.limits = loop.limits
        self.counters = loop.counters
        self.lastActivity = loop.now
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        counters.streamsOpen.subtract(streams.count, ordering: .relaxed)
    }

    /// Creates the session, queues the server's SETTINGS, and feeds the bytes `ConnectionStart` read.
    func start(initial: [UInt8]) {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, h2OnBeginHeaders)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, h2OnHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, h2OnDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, h2OnFrameRecv)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, h2OnStreamClose)
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, h2OnFrameSend)
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        // Bounds what a hostile peer can make us keep: streams it resets at once, and SETTINGS per frame.
        nghttp2_option_set_max_settings(option, 64)
        // Debian's nghttp2 1.52 carries the rapid-reset fix (CVE-2023-44487). Its default limit (1000, then 33 a
        // second) ended the reference target's libcurl 7.88 connection with GOAWAY INTERNAL_ERROR about every
        // thousand pushes (measured), and curl re-sent the pushes in flight: duplicates. A load harness must carry
        // a production client's rate, so the bound stays, far above it.
        nghttp2_option_set_stream_reset_rate_limit(option, 100_000, 50_000)
        var created: OpaquePointer?
        let rc = nghttp2_session_server_new2(&created, callbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        nghttp2_session_callbacks_del(callbacks)
        nghttp2_option_del(option)
        guard rc == 0, let created else {
            loop.closeConnection(self)
            return
        }
        session = created
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                                   value: UInt32(limits.maxConcurrentStreams)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                                   value: 1 << 20),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                                   value: UInt32(limits.maxHeaderBytes)),
        ]
        nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        if !initial.isEmpty {
            initial.withUnsafeBufferPointer { receive($0) }
        }
        if isClosed { return }
        readIn()
        if !isClosed { makeProgress() }
    }

    // MARK: - Events

    /// Reacts to what epoll reported for this socket: with bytes still readable, an error or hang-up is read
    /// first (see `HangUpRule.readFirst`: the peer's last frames may be a GOAWAY or a RST_STREAM).
    func handleEvents(_ events: UInt32) {
        handleEvents(events, onHangUp: .readFirst)
    }

    func hangUp() {
        loop.closeConnection(self)
    }

    private var wantsToRead: Bool {
        !failed && !peerClosed && writeBuffer.count < limits.writeHighWaterBytes
    }

    func readIn() {
        guard wantsToRead else { return }
        let end = loop.readChunks(from: stream, limit: 4) { chunk in
            lastActivity = loop.now
            receive(chunk)
            // A short read drained the socket (a TLS read returns one record, so only in the clear);
            // level-triggered epoll reports anything that arrives later.
            if isClosed || (!EventLoop.filledScratch(chunk) && !stream.isTLS) { return false }
            return wantsToRead
        }
        switch end {
        case .closed?: peerClosed = true
        case .error?: loop.closeConnection(self)
        case .bytes?, .wouldBlock?, nil: break
        }
    }

    private func receive(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let session, !failed else { return }
        let used = nghttp2_session_mem_recv(session, bytes.baseAddress, bytes.count)
        if used < 0 {
            // Malformed input: nghttp2 has queued GOAWAY where it could; send it, then close.
            failed = true
            counters.http2ProtocolErrors.add(1, ordering: .relaxed)
        }
    }

    // MARK: - Requests and answers

    fileprivate func beginHeaders(_ streamID: Int32) {
        guard streams[streamID] == nil else { return }
        let created = Stream()
        created.headers.reserveCapacity(12)  // grown one by one, it reallocated four times per request
        streams[streamID] = created
        receiving = (streamID, created)
        counters.streamOpened()
    }

    /// The stream whose HEADERS were received last: nghttp2 calls `header` once per field, then `data` and
    /// `requestComplete` for the same stream, and looking the stream up in the table each time showed in the
    /// gateway's profile (a hash per lookup).
    private var receiving: (id: Int32, stream: Stream)?

    private func openStream(_ streamID: Int32) -> Stream? {
        if let receiving, receiving.id == streamID { return receiving.stream }
        return streams[streamID]
    }

    /// Returns false to reset the stream (header list too large).
    fileprivate func header(_ streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>)
        -> Bool {
        guard let s = openStream(streamID) else { return true }
        s.headerBytes += name.count + value.count + 32
        if s.headerBytes > limits.maxHeaderBytes { return false }
        let slot = 2 * s.fields
        s.fields += 1
        let valueText = fieldStrings.string(value, slot: slot + 1)
        if name.first == UInt8(ascii: ":") {
            // Matched on bytes: making a String of each pseudo-header name showed in the gateway's profile.
            if bytesEqual(name, ":method") {
                s.method = valueText
            } else if bytesEqual(name, ":path") {
                s.path = valueText
            } else if bytesEqual(name, ":scheme") {
                s.scheme = valueText
            } else if bytesEqual(name, ":authority") {
                s.authority = valueText
            }
        } else {
            s.headers.append(HTTPHeader(name: fieldStrings.string(name, slot: slot), value: valueText))
        }
        return true
    }

    fileprivate func data(_ streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let s = openStream(streamID), !s.bodyTooLarge else { return }
        if s.body.count + bytes.count > limits.maxBodyBytes {
            s.bodyTooLarge = true
            s.body = []
        } else {
            s.body.append(contentsOf: bytes)
        }
    }

    /// The request on `streamID` is complete: hand it to the handler.
    fileprivate func requestComplete(_ streamID: Int32) {
        guard let s = openStream(streamID), !s.dispatched else { return }
        s.dispatched = true
        counters.requests.add(1, ordering: .relaxed)
        if s.bodyTooLarge {
            counters.badRequests.add(1, ordering: .relaxed)
            submit(streamID, s, HTTP1ResponseEncoder.errorResponse(413))
            return
        }
        if s.authority.isEmpty, let host = s.headers.firstValue(named: "host") { s.authority = host }
        var request = HTTPRequest(method: s.method, path: s.path, headers: s.headers, body: s.body, connectionID: id)
        request.receivedNanos = loop.now
        request.version = .http2
        stream.stamp(&request)
        s.body = []
        let sink = ResponseSink(loop: loop, fd: fd, connectionID: id, sequence: UInt64(streamID))
        loop.handler.handle(request) { response in sink.send(response) }
    }

    fileprivate func streamClosed(_ streamID: Int32) {
        if receiving?.id == streamID { receiving = nil }
        if streams.removeValue(forKey: streamID) != nil {
            counters.streamsOpen.subtract(1, ordering: .relaxed)
        }
    }

    func store(_ sequence: UInt64, _ response: HTTPResponse) -> Bool {
        guard sequence <= UInt64(Int32.max) else { return false }
        let streamID = Int32(sequence)
        guard let s = streams[streamID], s.dispatched, !s.answered else { return false }
        submit(streamID, s, response)
        return true
    }

    /// Queues a response on a stream; nghttp2 frames it as flow control allows (and copies the header block).
    private func submit(_ streamID: Int32, _ s: Stream, _ response: HTTPResponse) {
        guard let session else { return }
        s.answered = true
        let status = (200...999).contains(response.status) ? response.status : 500
        s.responseBody = ByteQueue(response.body)
        responseFields.withVectors(status: status, response: response) { nva, count in
            if response.body.isEmpty {
                _ = nghttp2_submit_response(session, streamID, nva, count, nil)
            } else {
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: h2ReadBody)
                _ = nghttp2_submit_response(session, streamID, nva, count, &provider)
            }
        }
        if response.goAway { goAway() }
    }

    /// A graceful GOAWAY, once per connection, in nghttp2's two steps: first a shutdown notice (GOAWAY with the
    /// largest stream id: the client opens no new stream here, and every stream it already sent is still
    /// answered), then, once no stream is open and the notice has had time to cross, the final GOAWAY naming
    /// the last stream handed to the handler. A one-step GOAWAY refuses streams the client had in flight, and
    /// libcurl (7.88 here) did not always re-send them: the same-seed run test once lost a call's push that way.
    private func goAway() {
        guard let session, goAwayNoticeAt == nil else { return }
        if nghttp2_submit_shutdown_notice(session) == 0 {
            goAwayNoticeAt = loop.now
            counters.goAwaysSent.add(1, ordering: .relaxed)
        }
    }

    /// Sends the final GOAWAY when its time has come; true if it did.
    private func finishGoAwayIfDue() -> Bool {
        guard let session, let noticed = goAwayNoticeAt, !sentFinalGoAway, streams.isEmpty,
              loop.now &- noticed >= Self.goAwayGraceNanos else { return false }
        sentFinalGoAway = true
        let last = nghttp2_session_get_last_proc_stream_id(session)
        _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, NGHTTP2_NO_ERROR.rawValue, nil, 0)
        return true
    }

    /// Between the shutdown notice and the final GOAWAY: far more than a loopback or LAN round trip.
    private static let goAwayGraceNanos: UInt64 = 200_000_000

    /// nghttp2 asks for up to `length` body bytes of `streamID`'s response.
    fileprivate func readBody(_ streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
                              flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let s = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(length, s.responseBody.count)
        s.responseBody.withReadableBuffer { body in
            if count > 0 { buffer.update(from: body.baseAddress!, count: count) }
        }
        // The last bytes taken empty the queue and free the body.
        s.responseBody.consume(count)
        if s.responseBody.isEmpty { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    // MARK: - Writing

    func makeProgress() {
        guard !isClosed, let session else { return }
        _ = finishGoAwayIfDue()
        while writeBuffer.count < limits.writeHighWaterBytes {
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &chunk)
            if count < 0 {
                loop.closeConnection(self)
                return
            }
            if count == 0 { break }
            writeBuffer.append(UnsafeBufferPointer(start: chunk, count: count))
        }
        if !writeBuffer.isEmpty {
            writeOut()
            if isClosed { return }
        }
        let flushed = writeBuffer.isEmpty
        if flushed && (failed || peerClosed
                       || (nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0)) {
            loop.closeConnection(self)
            return
        }
        updateInterest()
    }

    /// Sends as much of the write buffer as the socket takes; EPOLLOUT interest covers the rest.
    func writeOut() {
        let flush = stream.flush(&writeBuffer, keepingCapacityUpTo: 64 * 1024)
        if flush.progressed { lastActivity = loop.now }
        if flush.failed { loop.closeConnection(self) }
    }

    private func updateInterest() {
        var wanted: UInt32 = 0
        if wantsToRead { wanted |= CLINUX_EPOLLIN }
        if !writeBuffer.isEmpty { wanted |= CLINUX_EPOLLOUT }
        if wanted != interest {
            interest = wanted
            _ = clinux_epoll_ctl(loop.epollFD, 3, fd, wanted, UInt64(fd))
        }
    }

    func checkTimers() {
        if finishGoAwayIfDue() {
            makeProgress()
            if isClosed { return }
        }
        let now = loop.now
        if streams.isEmpty && now >= lastActivity && now &- lastActivity >= limits.idleTimeoutNanoseconds {
            loop.closeConnection(self)
        }
    }
}

/// Whether `bytes` spell `text` exactly (memcmp; the generic elementsEqual was slow on the header path).
@inline(__always)
private func bytesEqual(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
    bytes.count == text.utf8CodeUnitCount && (bytes.count == 0 || memcmp(bytes.baseAddress!, text.utf8Start,
                                                                         bytes.count) == 0)
}

// MARK: - nghttp2 callbacks: capture nothing, find the connection through user data.

@inline(__always)
private func connection(_ userData: UnsafeMutableRawPointer?) -> HTTP2Connection {
    Unmanaged<HTTP2Connection>.fromOpaque(userData!).takeUnretainedValue()
}

private let h2OnBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
    guard let frame else { return 0 }
    if UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue
        && frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST {
        connection(userData).beginHeaders(frame.pointee.hd.stream_id)
    }
    return 0
}

private let h2OnHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return 0 }
    let ok = connection(userData).header(
        frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
        value: UnsafeBufferPointer(start: value, count: valueLength))
    return ok ? 0 : NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
}

private let h2OnDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
    connection(userData).data(streamID, UnsafeBufferPointer(start: data, count: length))
    return 0
}

private let h2OnFrameRecv: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let type = UInt32(frame.pointee.hd.type)
    if (type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue)
        && frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
        connection(userData).requestComplete(frame.pointee.hd.stream_id)
    }
    return 0
}

private let h2OnStreamClose: nghttp2_on_stream_close_callback = { _, streamID, _, userData in
    connection(userData).streamClosed(streamID)
    return 0
}

/// Counts the peer's protocol errors as nghttp2 answers them: GOAWAY with an error, or RST_STREAM.
private let h2OnFrameSend: nghttp2_on_frame_send_callback = { _, frame, userData in
    guard let frame else { return 0 }
    let type = UInt32(frame.pointee.hd.type)
    if (type == NGHTTP2_GOAWAY.rawValue && frame.pointee.goaway.error_code != NGHTTP2_NO_ERROR.rawValue)
        || (type == NGHTTP2_RST_STREAM.rawValue
            && frame.pointee.rst_stream.error_code != NGHTTP2_REFUSED_STREAM.rawValue) {
        connection(userData).counters.http2ProtocolErrors.add(1, ordering: .relaxed)
    }
    return 0
}

private let h2ReadBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
    connection(userData).readBody(streamID, into: buffer!, length: length, flags: flags!)
}
