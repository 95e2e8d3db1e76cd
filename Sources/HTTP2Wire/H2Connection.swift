import Bytes
import CLibnghttp2
import StreamIO

/// One HTTP/2 connection of an `H2Client` on nghttp2's client session: bytes read go to `nghttp2_session_mem_recv`,
/// frames to write come from `nghttp2_session_mem_send`, so framing, HPACK, flow control, SETTINGS and the
/// peer's stream limit (requests past MAX_CONCURRENT_STREAMS wait in nghttp2) are nghttp2's; the socket (TLS
/// through StreamIO's `SocketStream`) and the exchanges are ours.
///
/// Thread rule: the client's event-thread queue only. nghttp2 calls back (through `user_data`) only inside
/// `mem_recv`/`mem_send`, on that thread.
final class H2Connection {
    enum Phase {
        case connecting
        case tlsHandshake
        case ready
    }

    unowned let client: H2Client
    let stream: SocketStream
    var phase = Phase.connecting
    private(set) var session: OpaquePointer?
    /// Exchanges by stream id, from submit to close.
    var streams: [Int32: H2Exchange] = [:]
    /// Exchanges sent before the connection was ready.
    var waiting: [H2Exchange] = []
    var outbound = ByteQueue()
    var interest: UInt32
    /// Monotonic nanoseconds by which TCP and TLS must be done; 0 once ready.
    var openDeadline: UInt64
    /// A GOAWAY came: no new stream goes here; streams above `lastStreamID` were not processed.
    var goneAway = false
    var lastStreamID = Int32.max
    /// A flush is posted for the end of the current batch (requests submitted in one batch share one write).
    var flushPosted = false
    /// The exchange whose HEADERS or DATA are being read: nghttp2 calls back per field, then per chunk.
    var receiving: (id: Int32, exchange: H2Exchange)?
    /// The request header block's scratch, kept between requests (no allocation per push).
    private var requestFields = H2RequestFields()

    var fd: Int32 { stream.fd }

    init(client: H2Client, stream: SocketStream, interest: UInt32, openDeadline: UInt64) {
        self.client = client
        self.stream = stream
        self.interest = interest
        self.openDeadline = openDeadline
    }

    deinit {
        if let session { nghttp2_session_del(session) }
    }

    /// Creates the client session and queues the preface's SETTINGS (no server push, a 16 MiB window for
    /// answers). False if nghttp2 could not make one.
    func startSession() -> Bool {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        nghttp2_session_callbacks_set_on_header_callback(callbacks, h2cOnHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, h2cOnDataChunk)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, h2cOnFrameRecv)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, h2cOnStreamClose)
        nghttp2_session_callbacks_set_on_frame_not_send_callback(callbacks, h2cOnFrameNotSend)
        var created: OpaquePointer?
        let rc = nghttp2_session_client_new(&created, callbacks, Unmanaged.passUnretained(self).toOpaque())
        nghttp2_session_callbacks_del(callbacks)
        guard rc == 0, let created else { return false }
        session = created
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        return true
    }

    /// Queues `exchange` as a new stream (nghttp2 copies the header block); false if nghttp2 refused it.
    func submit(_ exchange: H2Exchange, authority: String) -> Bool {
        guard let session else { return false }
        let request = exchange.request
        let id: Int32 = requestFields.withVectors(request, authority: authority) { nva, count in
            if request.body.isEmpty {
                return nghttp2_submit_request(session, nil, nva, count, nil, nil)
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: h2cReadBody)
            return nghttp2_submit_request(session, nil, nva, count, &provider, nil)
        }
        guard id > 0 else { return false }
        streams[id] = exchange
        return true
    }

    /// Feeds bytes read to nghttp2; false if it refused them (a protocol error: the connection is done).
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let session else { return false }
        return nghttp2_session_mem_recv(session, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                        bytes.count) >= 0
    }

    /// Moves nghttp2's frames into `outbound`; false on a fatal nghttp2 error.
    func collectFrames() -> Bool {
        guard let session else { return false }
        while true {
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &chunk)
            if count < 0 { return false }
            if count == 0 { return true }
            outbound.append(UnsafeBufferPointer(start: chunk, count: count))
        }
    }

    /// Whether nghttp2 is done with the connection (after GOAWAY both ways, or a fatal error).
    var sessionFinished: Bool {
        guard let session else { return true }
        return nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// Sends RST_STREAM(CANCEL) for a stream whose answer came too late.
    func cancel(_ streamID: Int32) {
        guard let session else { return }
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
    }

    /// Ends the session; the caller settles the exchanges left.
    func endSession() {
        if let session { nghttp2_session_del(session) }
        session = nil
        receiving = nil
    }

    // MARK: - What nghttp2 reports

    fileprivate func exchange(_ streamID: Int32) -> H2Exchange? {
        if let receiving, receiving.id == streamID { return receiving.exchange }
        guard let found = streams[streamID] else { return nil }
        receiving = (streamID, found)
        return found
    }

    fileprivate func header(_ streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard name.count == 7, name[0] == UInt8(ascii: ":"), name[1] == UInt8(ascii: "s"),
              let exchange = exchange(streamID) else { return }
        var status = 0
        for byte in value where (48...57).contains(byte) { status = status * 10 + Int(byte - 48) }
        exchange.status = status
    }

    fileprivate func data(_ streamID: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        exchange(streamID)?.body.append(contentsOf: bytes)
    }

    fileprivate func goAway(lastStreamID: Int32) {
        goneAway = true
        self.lastStreamID = lastStreamID
        client.stats.goAways += 1
    }

    /// A stream ended: answered, reset, or refused (above a GOAWAY's last stream, or never sent).
    fileprivate func closed(_ streamID: Int32, errorCode: UInt32) {
        if receiving?.id == streamID { receiving = nil }
        guard let exchange = streams.removeValue(forKey: streamID) else { return }
        client.settle(exchange, errorCode: errorCode)
    }

    fileprivate func readBody(_ streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int,
                              flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let exchange = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let body = exchange.request.body
        let count = min(length, body.count - exchange.sentBody)
        body.withUnsafeBufferPointer { all in
            if count > 0 { buffer.update(from: all.baseAddress! + exchange.sentBody, count: count) }
        }
        exchange.sentBody += count
        if exchange.sentBody == body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}

// MARK: - nghttp2 callbacks: capture nothing, find the connection through user data.

@inline(__always)
private func connection(_ userData: UnsafeMutableRawPointer?) -> H2Connection {
    Unmanaged<H2Connection>.fromOpaque(userData!).takeUnretainedValue()
}

private let h2cOnHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return 0 }
    connection(userData).header(frame.pointee.hd.stream_id, name: UnsafeBufferPointer(start: name, count: nameLength),
                                value: UnsafeBufferPointer(start: value, count: valueLength))
    return 0
}

private let h2cOnDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
    connection(userData).data(streamID, UnsafeBufferPointer(start: data, count: length))
    return 0
}

private let h2cOnFrameRecv: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    if UInt32(frame.pointee.hd.type) == NGHTTP2_GOAWAY.rawValue {
        connection(userData).goAway(lastStreamID: frame.pointee.goaway.last_stream_id)
    }
    return 0
}

private let h2cOnStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
    connection(userData).closed(streamID, errorCode: errorCode)
    return 0
}

/// A request nghttp2 could not start: after the server's GOAWAY it counts as refused (the client sends it again
/// on a new connection); for any other reason (a header block too large to send) it fails.
private let h2cOnFrameNotSend: nghttp2_on_frame_not_send_callback = { _, frame, libError, userData in
    guard let frame, UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue else { return 0 }
    let refused = libError == NGHTTP2_ERR_START_STREAM_NOT_ALLOWED.rawValue
    connection(userData).closed(frame.pointee.hd.stream_id,
                                errorCode: refused ? NGHTTP2_REFUSED_STREAM.rawValue : NGHTTP2_INTERNAL_ERROR.rawValue)
    return 0
}

private let h2cReadBody: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
    connection(userData).readBody(streamID, into: buffer!, length: length, flags: flags!)
}
