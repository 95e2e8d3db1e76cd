import CLinux
import EventPolling
import Locking
import struct Synchronization.Atomic
#if canImport(Glibc)
import Glibc
#endif

/// A fast HTTP/1.1 and HTTP/2 server (h2c with prior knowledge, TLS with ALPN h2, TLS without ALPN detected by
/// the connection preface) on non-blocking sockets and epoll, serving the push gateway and the embedded
/// reference target through one `HTTPHandler`.
///
/// Shape: one listening socket, registered with `EPOLLEXCLUSIVE` in each of `threads` event loops so the
/// kernel spreads accepts; each loop owns its connections outright, so the request path takes no lock. A
/// handler may answer from any thread; the answer travels through the loop's mailbox and eventfd.
///
/// Thread rules: `start()`, `stop()`, `port` and `stats` are safe from any thread, and `start`/`stop` are
/// serialised with each other. `stop()` must not be called from inside a handler (it waits for the loop
/// threads, one of which is running that handler); do it from another queue.
public final class HTTPServer: Sendable {
    private struct Running {
        var listenFD: Int32
        var loops: [EventLoop]
        var threads: [pthread_t]
    }

    public let configuration: HTTPServerConfiguration
    private let handler: any HTTPHandler
    private let counters = HTTPServerCounters()
    private let boundPort = Atomic<Int>(0)
    private let running = Mutex<Running?>(nil)

    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), handler: any HTTPHandler) {
        self.configuration = configuration
        self.handler = handler
    }

    deinit {
        stop()
    }

    /// The port the server is bound to (the kernel's choice when the configuration said 0). 0 before the
    /// first `start()`; after `stop()` it still reports the port last used.
    public var port: Int {
        boundPort.load(ordering: .acquiring)
    }

    /// Counters since the server was created, read without locks.
    public var stats: HTTPServerStats {
        counters.snapshot
    }

    /// Whether the server is accepting connections.
    public var isRunning: Bool {
        running.withLock { $0 != nil }
    }

    // MARK: - Starting

    /// Binds the listening socket and starts the event-loop threads. Returns once the server accepts
    /// connections. Throws, with nothing left open, if the configuration is invalid, the address cannot be
    /// bound, or the loops cannot be created.
    public func start() throws(HTTPServerError) {
        let problems = configuration.validate()
        guard problems.isEmpty else { throw .invalidConfiguration(problems) }
        try running.withLock { (state: inout Running?) throws(HTTPServerError) in
            guard state == nil else { throw .alreadyRunning }
            state = try launch()
        }
    }

    private func launch() throws(HTTPServerError) -> Running {
        let config = configuration
        // OpenSSL writes through the socket with write(2), which raises SIGPIPE when the peer has gone (the
        // cleartext path uses MSG_NOSIGNAL). A load tool's server must survive peers that vanish: ignore it.
        signal(SIGPIPE, SIG_IGN)
        let listenFD = clinux_listen_tcp(config.host, Int32(config.port), Int32(config.backlog))
        guard listenFD >= 0 else {
            throw .bindFailed(host: config.host, port: config.port, errno: -listenFD)
        }
        let limits = EventLoop.Limits(
            maxHeaderBytes: config.maxHeaderBytes,
            maxBodyBytes: config.maxBodyBytes,
            idleTimeoutNanoseconds: UInt64(config.idleTimeoutSeconds * 1_000_000_000),
            http2: config.http2,
            maxConcurrentStreams: config.maxConcurrentStreams,
            listenerIsTLS: config.tls != nil,
            connect: config.connect
        )
        var tls: TLSContext?
        if let files = config.tls ?? config.connect?.tunnelTLS {
            do throws(HTTPServerError) {
                tls = try TLSContext(files)
            } catch {
                close(listenFD)
                throw error
            }
        }
        var loops: [EventLoop] = []
        do throws(HTTPServerError) {
            for index in 0..<config.threads {
                loops.append(try EventLoop(
                    index: index, listenFD: listenFD, handler: handler, counters: counters,
                    connectionIDs: ConnectionIDSource.shared, limits: limits, tls: tls))
            }
        } catch {
            for loop in loops { loop.discardUnstarted() }
            close(listenFD)
            throw error
        }

        var threads: [pthread_t] = []
        for (index, loop) in loops.enumerated() {
            var thread = pthread_t()
            let box = Unmanaged.passRetained(LoopStart(loop: loop, index: index, config: config))
            let rc = pthread_create(&thread, nil, { raw in
                let start = Unmanaged<LoopStart>.fromOpaque(raw!).takeRetainedValue()
                start.prepareThread()
                start.loop.run()
                return nil
            }, box.toOpaque())
            if rc != 0 {
                box.release()
                for started in loops[..<index] { started.requestStop() }
                for thread in threads { pthread_join(thread, nil) }
                for unstarted in loops[index...] { unstarted.discardUnstarted() }
                close(listenFD)
                throw .systemCallFailed(call: "pthread_create", errno: rc)
            }
            threads.append(thread)
        }
        boundPort.store(Int(clinux_local_port(listenFD)), ordering: .releasing)
        return Running(listenFD: listenFD, loops: loops, threads: threads)
    }

    /// What a loop thread needs before its loop runs: its name and scheduling (`HTTPServerConfiguration`).
    private final class LoopStart {
        let loop: EventLoop
        let name: String?
        let scheduling: ThreadScheduling

        init(loop: EventLoop, index: Int, config: HTTPServerConfiguration) {
            self.loop = loop
            name = config.threadName.map { "\($0).\(index)" }
            scheduling = config.threadScheduling
        }

        /// Scheduling first, then the name: a thread seen by its name already runs at its scheduling.
        func prepareThread() {
            scheduling.applyToCurrentThread()
            if let name { clinux_name_thread(name) }
        }
    }

    // MARK: - Stopping

    /// Stops accepting, closes every connection and every descriptor the server opened, and returns after
    /// the loop threads have exited. Answers handlers give later are dropped. Safe to call more than once.
    public func stop() {
        running.withLock { state in
            guard let current = state else { return }
            state = nil
            for loop in current.loops { loop.requestStop() }
            let me = pthread_self()
            for thread in current.threads {
                if pthread_equal(thread, me) != 0 {
                    // Called from a handler on a loop thread despite the rule: that loop finishes on its own
                    // once the handler returns.
                    pthread_detach(thread)
                } else {
                    pthread_join(thread, nil)
                }
            }
            close(current.listenFD)
        }
    }
}
