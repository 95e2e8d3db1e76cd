import CCurl
import CLinux
import Dispatch
import EventPolling
import Foundation

/// An HTTP client on one libcurl multi handle, driven from one serial queue.
///
/// Ownership rule: every method must be called on `queue`, and every completion runs on it. That is what lets a
/// worker's devices share one client with no locks. Connections are kept alive and reused by the multi handle's
/// connection cache.
///
/// curl's sockets sit directly in the epoll set of an `EventThread` (shared by every client on the queue, or the
/// client's own), whose thread runs ready sockets on the queue in batches; changing what a socket waits for is
/// one epoll_ctl, and curl's timeout is a timerfd on the same thread. (One read and one write DispatchSource per
/// socket cost a wake-up of libdispatch's manager thread for every suspend, resume and re-arm; a read source on
/// a per-client epoll fd fired ~670 times per real event; see EventThread.)
public final class HTTPClient: @unchecked Sendable {
    public enum Version: Sendable {
        case http1
        /// HTTP/2 over TLS with ALPN, multiplexed on few connections (Debian's curl cannot reuse h2c).
        case http2TLS
    }

    public struct Configuration: Sendable {
        public var version: Version = .http1
        public var maxConnections: Int = 256
        public var maxResponseBytes: Int = 4 << 20
        public var connectTimeoutMillis: Int = 5_000
        /// `http://host:port` of an HTTP proxy: https URLs are reached through a CONNECT tunnel (as APNs clients
        /// behind `HTTPS_PROXY` do). Nil connects directly.
        public var proxy: String?
        /// One PEM file holding a client certificate and its key, presented in TLS handshakes (mutual TLS).
        public var clientCertificatePath: String?
        /// PEM file of the CA certificates https URLs are verified against instead of the system store: a call
        /// server whose certificate its own CA signed (scenario `target.ca`), or callstorm's gateway CA.
        public var caFile: String?
        public init() {}
    }

    public typealias Completion = (Result<ClientResponse, TransportError>) -> Void

    public let queue: DispatchQueue
    private let configuration: Configuration
    private let multi: UnsafeMutableRawPointer
    private var timer: EventTimer?
    /// The thread whose epoll set holds curl's sockets (registered under `handlerID`).
    private let events: EventThread
    private let ownsEvents: Bool
    private var handlerID: UInt32 = 0
    /// Per socket: what the epoll set has it registered for, and what curl wants now. curl drops and re-adds
    /// interest in reading around every request on a keep-alive connection, so a socket it stops wanting stays
    /// registered until an event comes that curl did not ask for (then it is deleted): no epoll_ctl per request.
    private var sockets: [Int32: (registered: UInt32, wanted: UInt32)] = [:]
    /// Easy handles of finished transfers, kept for the next request: curl_easy_init and cleanup per request
    /// (a ~5 KB calloc plus init each) showed in the raw-http profile. Each remembers its configuration, so a
    /// request of the same shape skips the reset and setopts.
    private var spareEasy: [Transfer.Spare] = []
    private var inFlight: [UnsafeMutableRawPointer: Transfer] = [:]
    private var closed = false
    private var actionScheduled = false
    /// When the timer fires next (CLOCK_MONOTONIC nanoseconds); `.max` when disarmed.
    private var armedDeadline: UInt64 = .max

    public var inFlightCount: Int { inFlight.count }

    /// - Parameter events: the event thread of `queue` to share (its queue must be `queue`); nil starts one of the
    ///   client's own, stopped by `close`. When `events` is given, call this on `queue`.
    public init(queue: DispatchQueue, configuration: Configuration = Configuration(), events: EventThread? = nil) {
        CurlGlobal.ensureInitialized()
        self.queue = queue
        self.configuration = configuration
        self.multi = curl_multi_init()!
        if let events {
            precondition(events.queue === queue, "an HTTPClient shares only its own queue's EventThread")
            self.events = events
            ownsEvents = false
        } else {
            self.events = EventThread(queue: queue, name: "callstorm.http")
            ownsEvents = true
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        ccurl_multi_setopt_socket(multi, httpClientSocketCallback, me)
        ccurl_multi_setopt_timer(multi, httpClientTimerCallback, me)
        ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxConnections)
        if case .http2TLS = configuration.version {
            ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        }
        handlerID = self.events.register(ready: { [unowned self] fd, events in self.ready(fd, events) },
                                         batchDone: { [unowned self] in self.collectDone() })
        timer = EventTimer(on: self.events) { [unowned self] in self.timerFired() }
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
        let spare = spareEasy.popLast()
        let transfer = Transfer(easy: spare?.easy ?? curl_easy_init(), completion: completion,
                                limit: configuration.maxResponseBytes)
        guard let easy = transfer.easy else {
            completion(.failure(.other(code: -1, message: "curl_easy_init failed")))
            return
        }
        transfer.configure(request, configuration: configuration,
                           closeContext: Unmanaged.passUnretained(self).toOpaque(), spare: spare)
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
        timer?.close()
        timer = nil
        for fd in sockets.keys { events.remove(fd) }
        sockets.removeAll()
        for spare in spareEasy {
            curl_easy_cleanup(spare.easy)
            if let list = spare.headerList { curl_slist_free_all(list) }
        }
        spareEasy.removeAll()
        events.unregister(handlerID)
        if ownsEvents { events.stop() }
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
            if spareEasy.count < configuration.maxConnections,
               let spare = transfer.takeSpare(reusable: code == CURLE_OK) {
                spareEasy.append(spare)
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

    /// One ready socket from the event thread, handed to curl; finished transfers are collected once per batch.
    private func ready(_ fd: Int32, _ events: UInt32) {
        guard !closed else { return }
        guard let state = sockets[fd], state.wanted != 0 else {
            // curl stopped waiting on it: unregister now, and keep the event from curl.
            if sockets.removeValue(forKey: fd) != nil { self.events.remove(fd) }
            return
        }
        var mask: Int32 = 0
        if events & (CLINUX_EPOLLIN | CLINUX_EPOLLHUP) != 0 { mask |= CURL_CSELECT_IN }
        if events & CLINUX_EPOLLOUT != 0 { mask |= CURL_CSELECT_OUT }
        if events & CLINUX_EPOLLERR != 0 { mask |= CURL_CSELECT_ERR }
        var running: Int32 = 0
        curl_multi_socket_action(multi, fd, mask, &running)
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
            if old != events { self.events.modify(fd, events: events, handler: handlerID) }
        } else {
            self.events.add(fd, events: events, handler: handlerID)
        }
        sockets[fd] = (events, events)
    }

    /// curl moves its timeout around every request. Only an earlier deadline than the one armed re-arms (one
    /// timerfd_settime); a later one lets the timer fire early, curl finds nothing due and asks again.
    fileprivate func armTimer(_ timeoutMillis: Int) {
        if timeoutMillis < 0 {
            return  // curl needs no timeout: an armed one fires harmlessly
        } else if timeoutMillis == 0 {
            // curl forbids re-entering socket_action from its callback: run it right after, on this thread
            // (a post, not a queue.async: no pool thread woken per request).
            if !actionScheduled {
                actionScheduled = true
                events.post { [weak self] in
                    guard let self else { return }
                    self.actionScheduled = false
                    self.socketAction(CURL_SOCKET_TIMEOUT, 0)
                }
            }
        } else {
            let deadline = clinux_monotonic_ns() + UInt64(timeoutMillis) * 1_000_000
            if deadline < armedDeadline {
                armedDeadline = deadline
                timer?.arm(atMonotonicNanos: deadline)
            }
        }
    }

    private func timerFired() {
        armedDeadline = .max  // a one-shot timer: it is disarmed now
        socketAction(CURL_SOCKET_TIMEOUT, 0)
    }

    fileprivate func closeSocket(_ fd: curl_socket_t) {
        if sockets.removeValue(forKey: fd) != nil { events.remove(fd) }
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
