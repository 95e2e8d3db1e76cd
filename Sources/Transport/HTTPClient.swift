import CCurl
import Dispatch
import Foundation

/// An HTTP client on one libcurl multi handle, driven by DispatchSources on one serial queue.
///
/// Ownership rule: every method must be called on `queue`, and every completion runs on it. That is what lets a
/// worker's devices share one client with no locks. Connections are kept alive and reused by the multi handle's
/// connection cache. Sockets are closed only after their read and write sources have been cancelled, so a reused
/// fd number never reaches a stale source.
public final class HTTPClient: @unchecked Sendable {
    public enum Version: Sendable {
        case http1
        /// HTTP/2 over TLS with ALPN, multiplexed on few connections (Debian's curl cannot reuse h2c).
        case http2TLS(caFile: String?)
    }

    public struct Configuration: Sendable {
        public var version: Version = .http1
        public var maxConnections: Int = 256
        public var maxResponseBytes: Int = 4 << 20
        public var connectTimeoutMillis: Int = 5_000
        public init() {}
    }

    public typealias Completion = (Result<ClientResponse, TransportError>) -> Void

    public let queue: DispatchQueue
    private let configuration: Configuration
    private let multi: UnsafeMutableRawPointer
    private var timer: DispatchSourceTimer?
    private var watches: [Int32: SocketWatch] = [:]
    private var inFlight: [UnsafeMutableRawPointer: Transfer] = [:]
    private var closed = false
    private var actionScheduled = false

    public var inFlightCount: Int { inFlight.count }

    public init(queue: DispatchQueue, configuration: Configuration = Configuration()) {
        CurlGlobal.ensureInitialized()
        self.queue = queue
        self.configuration = configuration
        self.multi = curl_multi_init()!
        let me = Unmanaged.passUnretained(self).toOpaque()
        ccurl_multi_setopt_socket(multi, httpClientSocketCallback, me)
        ccurl_multi_setopt_timer(multi, httpClientTimerCallback, me)
        ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxConnections)
        if case .http2TLS = configuration.version {
            ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [unowned self] in self.socketAction(CURL_SOCKET_TIMEOUT, 0) }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
        self.timer = timer
    }

    /// Close explicitly on `queue`; this is the fallback for a client dropped without it.
    deinit {
        if !closed { close() }
    }

    /// Sends `request`; `completion` runs on `queue` exactly once. Must be called on `queue`.
    public func send(_ request: ClientRequest, completion: @escaping Completion) {
        guard !closed else {
            completion(.failure(.other(code: -1, message: "client closed")))
            return
        }
        let transfer = Transfer(completion: completion, limit: configuration.maxResponseBytes)
        guard let easy = transfer.easy else {
            completion(.failure(.other(code: -1, message: "curl_easy_init failed")))
            return
        }
        transfer.configure(request, configuration: configuration,
                           closeContext: Unmanaged.passUnretained(self).toOpaque())
        inFlight[easy] = transfer
        let rc = curl_multi_add_handle(multi, easy)
        if rc != CURLM_OK {
            inFlight[easy] = nil
            completion(.failure(.other(code: Int(rc.rawValue), message: String(cString: curl_multi_strerror(rc)))))
        }
    }

    /// Fails every request in flight and releases all sockets. Must be called on `queue`.
    public func close() {
        guard !closed else { return }
        closed = true
        for (key, transfer) in inFlight {
            curl_multi_remove_handle(multi, key)
            transfer.finish(.failure(.other(code: -1, message: "client closed")))
        }
        inFlight.removeAll()
        curl_multi_cleanup(multi)  // closes cached connections through the close-socket callback
        timer?.cancel()
        timer = nil
        for (_, watch) in watches { watch.cancel() }
        watches.removeAll()
    }

    // MARK: - Driving curl

    fileprivate func socketAction(_ fd: curl_socket_t, _ events: Int32) {
        guard !closed else { return }
        var running: Int32 = 0
        curl_multi_socket_action(multi, fd, events, &running)
        collectDone()
    }

    private func collectDone() {
        var easy: UnsafeMutableRawPointer?
        var code = CURLE_OK
        while ccurl_multi_next_done(multi, &easy, &code) != 0 {
            guard let easy else { continue }
            curl_multi_remove_handle(multi, easy)
            guard let transfer = inFlight.removeValue(forKey: easy) else { continue }
            if code == CURLE_OK {
                var status = 0
                ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                transfer.finish(.success(ClientResponse(status: status, body: transfer.body, headers: transfer.headers)))
            } else if code == CURLE_COULDNT_CONNECT, Self.osErrno(easy) == ECONNREFUSED {
                transfer.finish(.failure(.refused))
            } else if code == CURLE_COULDNT_CONNECT, Self.osErrno(easy) == ECONNRESET {
                // Accepted, then reset before curl saw the connection complete (a proxy resetting at once).
                transfer.finish(.failure(.reset("connection reset by peer during connect")))
            } else {
                transfer.finish(.failure(Self.classify(code, overLimit: transfer.overLimit, limit: transfer.limit)))
            }
        }
    }

    /// The errno of the transfer's last failed system call (0 when none).
    static func osErrno(_ easy: UnsafeMutableRawPointer) -> Int32 {
        var value = 0
        ccurl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &value)
        return Int32(value)
    }

    static func classify(_ code: CURLcode, overLimit: Bool, limit: Int) -> TransportError {
        let message = String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST: return .connect(message)
        case CURLE_OPERATION_TIMEDOUT: return .timeout
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2,
             CURLE_HTTP2_STREAM:
            return .reset(message)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL:
            return .protocolError(message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE:
            return .tls(message)
        case CURLE_WRITE_ERROR where overLimit: return .responseTooLarge(limit: limit)
        default: return .other(code: Int(code.rawValue), message: message)
        }
    }

    // MARK: - curl callbacks (called on `queue`, from inside curl_multi_socket_action)

    fileprivate func watch(_ fd: curl_socket_t, what: Int32) {
        if what == CURL_POLL_REMOVE {
            watches[fd]?.want(read: false, write: false)
            return
        }
        let watch: SocketWatch
        if let existing = watches[fd] {
            watch = existing
        } else {
            watch = SocketWatch(fd: fd, queue: queue) { [unowned self] fd, events in self.socketAction(fd, events) }
            watches[fd] = watch
        }
        watch.want(read: what & CURL_POLL_IN != 0, write: what & CURL_POLL_OUT != 0)
    }

    fileprivate func armTimer(_ timeoutMillis: Int) {
        if timeoutMillis < 0 {
            timer?.schedule(deadline: .distantFuture)
        } else if timeoutMillis == 0 {
            // curl forbids re-entering socket_action from its callback: run it right after.
            if !actionScheduled {
                actionScheduled = true
                queue.async { [weak self] in
                    guard let self else { return }
                    self.actionScheduled = false
                    self.socketAction(CURL_SOCKET_TIMEOUT, 0)
                }
            }
            timer?.schedule(deadline: .distantFuture)
        } else {
            timer?.schedule(deadline: .now() + .milliseconds(timeoutMillis), leeway: .microseconds(200))
        }
    }

    fileprivate func closeSocket(_ fd: curl_socket_t) {
        if let watch = watches.removeValue(forKey: fd) {
            watch.cancelThenClose()
        } else {
            Foundation.close(fd)
        }
    }
}

// MARK: - C entry points: capture nothing, find the client through user data.

private let httpClientSocketCallback: ccurl_socket_callback = { _, fd, what, userp, _ in
    Unmanaged<HTTPClient>.fromOpaque(userp!).takeUnretainedValue().watch(fd, what: what)
    return 0
}

private let httpClientTimerCallback: ccurl_timer_callback = { _, timeoutMillis, userp in
    Unmanaged<HTTPClient>.fromOpaque(userp!).takeUnretainedValue().armTimer(timeoutMillis)
    return 0
}

let httpClientCloseSocketCallback: ccurl_closesocket_callback = { clientp, fd in
    Unmanaged<HTTPClient>.fromOpaque(clientp!).takeUnretainedValue().closeSocket(fd)
    return 0
}

enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    static func ensureInitialized() { _ = initialized }
}
