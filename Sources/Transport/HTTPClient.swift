import CCurl
import CLinux
import Dispatch
import Foundation

/// An HTTP client on one libcurl multi handle, driven from one serial queue.
///
/// Ownership rule: every method must be called on `queue`, and every completion runs on it. That is what lets a
/// worker's devices share one client with no locks. Connections are kept alive and reused by the multi handle's
/// connection cache.
///
/// curl's sockets sit in one epoll set per client, and one DispatchSource watches that epoll fd: an event drains
/// every ready socket in a batch, and changing what a socket waits for is one epoll_ctl. (One read and one write
/// DispatchSource per socket cost a wake-up of libdispatch's manager thread for every suspend, resume and
/// re-arm; with 1,000 connections that was half the CPU of the raw-http loop, see Benchmarks/results.)
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
    /// The epoll set of curl's sockets, and what each socket is registered for.
    private let epollFD: Int32
    private var epollSource: DispatchSourceRead?
    /// Per socket: what the epoll set has it registered for, and what curl wants now. curl drops and re-adds
    /// interest in reading around every request on a keep-alive connection, so a socket it stops wanting stays
    /// registered until an event comes that curl did not ask for (then it is deleted): no epoll_ctl per request.
    private var sockets: [Int32: (registered: UInt32, wanted: UInt32)] = [:]
    /// Easy handles of finished transfers, reset for the next request: curl_easy_init and cleanup per request
    /// (a ~5 KB calloc plus init each) showed in the raw-http profile.
    private var spareEasy: [UnsafeMutableRawPointer] = []
    private var readyData = [UInt64](repeating: 0, count: 256)
    private var readyEvents = [UInt32](repeating: 0, count: 256)
    private var inFlight: [UnsafeMutableRawPointer: Transfer] = [:]
    private var closed = false
    private var actionScheduled = false
    /// When the timer fires next (uptime nanoseconds); `.max` when disarmed.
    private var armedDeadline: UInt64 = .max

    public var inFlightCount: Int { inFlight.count }

    public init(queue: DispatchQueue, configuration: Configuration = Configuration()) {
        CurlGlobal.ensureInitialized()
        self.queue = queue
        self.configuration = configuration
        self.multi = curl_multi_init()!
        self.epollFD = clinux_epoll_create()
        let me = Unmanaged.passUnretained(self).toOpaque()
        ccurl_multi_setopt_socket(multi, httpClientSocketCallback, me)
        ccurl_multi_setopt_timer(multi, httpClientTimerCallback, me)
        ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxConnections)
        if case .http2TLS = configuration.version {
            ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [unowned self] in self.timerFired() }
        timer.schedule(deadline: .distantFuture)
        timer.resume()
        self.timer = timer
        let source = DispatchSource.makeReadSource(fileDescriptor: epollFD, queue: queue)
        source.setEventHandler { [unowned self] in self.drainReady() }
        let epollFD = self.epollFD
        source.setCancelHandler { Foundation.close(epollFD) }
        source.resume()
        epollSource = source
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
        let transfer = Transfer(easy: spareEasy.popLast() ?? curl_easy_init(), completion: completion,
                                limit: configuration.maxResponseBytes)
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
        sockets.removeAll()
        for easy in spareEasy { curl_easy_cleanup(easy) }
        spareEasy.removeAll()
        epollSource?.setEventHandler(handler: nil)
        epollSource?.cancel()  // closes the epoll fd
        epollSource = nil
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
            // Everything read from the handle is read before it is reset for reuse.
            var status = 0
            if code == CURLE_OK { ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) }
            let osErrno = code == CURLE_COULDNT_CONNECT ? Self.osErrno(easy) : 0
            if spareEasy.count < configuration.maxConnections, let handle = transfer.takeEasy() {
                curl_easy_reset(handle)
                spareEasy.append(handle)
            }
            if code == CURLE_OK {
                transfer.finish(.success(ClientResponse(status: status, body: transfer.body, headers: transfer.headers)))
            } else if code == CURLE_COULDNT_CONNECT, osErrno == ECONNREFUSED {
                transfer.finish(.failure(.refused))
            } else if code == CURLE_COULDNT_CONNECT, osErrno == ECONNRESET {
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

    /// Hands every ready socket to curl, in batches of up to 256, until none is ready.
    private func drainReady() {
        guard !closed else { return }
        var running: Int32 = 0
        for _ in 0..<16 {
            let n = Int(clinux_epoll_wait(epollFD, &readyData, &readyEvents, Int32(readyData.count), 0))
            guard n > 0 else { break }
            for i in 0..<n {
                let fd = curl_socket_t(truncatingIfNeeded: readyData[i])
                guard let state = sockets[fd], state.wanted != 0 else {
                    // curl stopped waiting on it: unregister now, and keep the event from curl.
                    if sockets.removeValue(forKey: fd) != nil { _ = clinux_epoll_ctl(epollFD, 2, fd, 0, 0) }
                    continue
                }
                let events = readyEvents[i]
                var mask: Int32 = 0
                if events & (CLINUX_EPOLLIN | CLINUX_EPOLLHUP) != 0 { mask |= CURL_CSELECT_IN }
                if events & CLINUX_EPOLLOUT != 0 { mask |= CURL_CSELECT_OUT }
                if events & CLINUX_EPOLLERR != 0 { mask |= CURL_CSELECT_ERR }
                curl_multi_socket_action(multi, fd, mask, &running)
                if closed { return }
            }
            collectDone()
            if n < readyData.count { return }
        }
        // Still more ready after 16 full batches: yield the queue to other work, then carry on (the source may
        // not fire again for events that were already pending).
        queue.async { [weak self] in self?.drainReady() }
    }

    fileprivate func watch(_ fd: curl_socket_t, what: Int32) {
        if what == CURL_POLL_REMOVE {
            sockets[fd]?.wanted = 0
            return
        }
        var events: UInt32 = 0
        if what & CURL_POLL_IN != 0 { events |= CLINUX_EPOLLIN }
        if what & CURL_POLL_OUT != 0 { events |= CLINUX_EPOLLOUT }
        if let old = sockets[fd]?.registered {
            if old != events { _ = clinux_epoll_ctl(epollFD, 3, fd, events, UInt64(UInt32(bitPattern: fd))) }
        } else {
            _ = clinux_epoll_ctl(epollFD, 1, fd, events, UInt64(UInt32(bitPattern: fd)))
        }
        sockets[fd] = (events, events)
    }

    /// curl moves its timeout around every request. Re-arming a DispatchSourceTimer wakes libdispatch's manager
    /// thread, so a later deadline than the one armed is not re-armed: the timer fires early, curl finds nothing
    /// due and asks again. Only an earlier deadline re-arms.
    fileprivate func armTimer(_ timeoutMillis: Int) {
        if timeoutMillis < 0 {
            return  // curl needs no timeout: an armed one fires harmlessly
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
        } else {
            let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMillis) * 1_000_000
            if deadline < armedDeadline {
                armedDeadline = deadline
                timer?.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .microseconds(200))
            }
        }
    }

    private func timerFired() {
        armedDeadline = .max  // a one-shot timer: it is disarmed now
        socketAction(CURL_SOCKET_TIMEOUT, 0)
    }

    fileprivate func closeSocket(_ fd: curl_socket_t) {
        if sockets.removeValue(forKey: fd) != nil { _ = clinux_epoll_ctl(epollFD, 2, fd, 0, 0) }
        Foundation.close(fd)
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
