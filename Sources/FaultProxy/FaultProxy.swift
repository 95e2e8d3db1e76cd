import CLinux
import Determinism
import Locking
import struct Synchronization.Atomic
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on loopback that passes every connection to one upstream target through a list of toxics:
/// the network faults callstorm injects between its devices and the target.
///
/// One epoll event-loop thread serves every connection with non-blocking sockets; each connection has two
/// directions (`.upstream` client → server, `.downstream` server → client), each through the toxics that
/// cover it, in list order. Delays are driven by one timer heap on the loop thread, not a timer per chunk.
///
/// Reproducibility: whether a toxic applies to a connection (its `toxicity`) and every random number a toxic
/// draws come from `seed`, the connection number (1, 2, … in accept order) and the toxic's name.
///
/// Thread safety: every method is safe from any thread.
public final class FaultProxy: Sendable {
    public let listenHost: String
    public let listenPort: Int
    public let upstreamHost: String
    public let upstreamPort: Int
    public let seed: UInt64
    let clock: any Clock
    private let shared: ProxyShared
    private let lifecycle = Mutex(Lifecycle.idle)
    private let boundPort = Atomic<Int>(0)

    private enum Lifecycle {
        case idle
        case running(listenFD: Int32, loop: ProxyLoop, thread: pthread_t)
        case stopped
    }

    /// - Parameters:
    ///   - listenHost, listenPort: where clients connect; port 0 takes any free port (read `port`).
    ///   - upstreamHost, upstreamPort: the target, an IP literal (the proxy does not resolve names).
    ///   - seed: every random choice derives from it, never from the clock.
    ///   - clock: monotonic time for toxic delays; tests of pipelines move a manual one.
    ///   - decisionLogLimit: how many per-connection toxicity decisions `decisionLog` keeps.
    public init(
        listenHost: String = "127.0.0.1", listenPort: Int = 0, upstreamHost: String = "127.0.0.1",
        upstreamPort: Int, seed: UInt64, clock: any Clock = MonotonicClock(), decisionLogLimit: Int = 10_000
    ) {
        self.listenHost = listenHost
        self.listenPort = listenPort
        self.upstreamHost = upstreamHost
        self.upstreamPort = upstreamPort
        self.seed = seed
        self.clock = clock
        shared = ProxyShared(decisionLogLimit: decisionLogLimit)
    }

    deinit { stop() }

    /// The port clients connect to, once started (0 before).
    public var port: Int { boundPort.load(ordering: .acquiring) }

    /// Binds the listening socket and starts the loop thread; returns once connections are accepted.
    /// Throws, with nothing left open, if the address cannot be bound or the loop cannot start.
    /// A proxy starts once: after `stop()`, make a new one.
    public func start() throws(FaultProxyError) {
        try lifecycle.withLock { (state: inout Lifecycle) throws(FaultProxyError) in
            guard case .idle = state else { throw .notStartable }
            state = try launch()
        }
    }

    private func launch() throws(FaultProxyError) -> Lifecycle {
        let listenFD = clinux_listen_tcp(listenHost, Int32(listenPort), 1024)
        guard listenFD >= 0 else { throw .bindFailed(host: listenHost, port: listenPort, errno: -listenFD) }
        let loop: ProxyLoop
        do throws(FaultProxyError) {
            loop = try ProxyLoop(listenFD: listenFD, upstreamHost: upstreamHost, upstreamPort: upstreamPort,
                                 seed: seed, clock: clock, shared: shared)
        } catch {
            close(listenFD)
            throw error
        }
        var thread = pthread_t()
        let box = Unmanaged.passRetained(loop)
        let rc = pthread_create(&thread, nil, { raw in
            Unmanaged<ProxyLoop>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            loop.discardUnstarted()
            close(listenFD)
            throw .systemCallFailed(call: "pthread_create", errno: rc)
        }
        boundPort.store(Int(clinux_local_port(listenFD)), ordering: .releasing)
        return .running(listenFD: listenFD, loop: loop, thread: thread)
    }

    /// Stops accepting, closes every connection and every descriptor the proxy opened, and returns after the
    /// loop thread has exited. Safe to call more than once.
    public func stop() {
        lifecycle.withLock { state in
            guard case .running(let listenFD, let loop, let thread) = state else {
                if case .idle = state { state = .stopped }
                return
            }
            state = .stopped
            loop.requestStop()
            pthread_join(thread, nil)
            close(listenFD)
        }
    }

    /// Replaces the toxic list. Checks every spec first and changes nothing if any is wrong (all problems are
    /// thrown together). Takes effect on the loop's next turn for new connections and for data on live ones:
    /// a toxic kept with the same name and spec keeps its per-connection state; a removed one lets what it
    /// holds go on at once; an added one starts on live connections now (its timers count from now).
    public func setToxics(_ toxics: [ToxicSpec]) throws(FaultProxyError) {
        shared.setToxics(try ToxicRegistry.build(toxics))
        wake()
    }

    /// The toxic list in force (or about to be, on the loop's next turn).
    public var toxics: [ToxicSpec] { shared.toxics().toxics.map(\.spec) }

    /// A snapshot of the counters, as of the loop's last turn.
    public var stats: ProxyStats { shared.stats }

    /// Each connection's toxicity decision for each toxic it met, in the order they were made; up to
    /// `decisionLogLimit` entries. The same seed and the same order of connections give the same log.
    public var decisionLog: [ToxicDecisionRecord] { shared.decisions }

    private func wake() {
        lifecycle.withLock { state in
            if case .running(_, let loop, _) = state { loop.requestWake() }
        }
    }
}
