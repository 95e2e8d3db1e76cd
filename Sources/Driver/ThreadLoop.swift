import StreamIO
import CLinux
import Determinism
import Dispatch
import EventPolling
import Foundation
import MediaIO
import Scenario
import SIPClient
import Transport
import WebSocketClient

/// The real `DriverLoop`: one epoll thread (`EventThread`) that waits for the worker's sockets and its timer (an
/// `EventTimer`: absolute deadline, carried by the thread's wait) and runs the worker to completion on itself, and the
/// HTTP client on it (libcurl's or callstorm's own, by `target.client`). Everything from other threads (the push
/// gateway's pushes, the run's start and stop, the end's reads) comes through the thread's mailbox (`post`, `execute`,
/// `sync`): no Dispatch lock per batch and no libdispatch pool thread woken per block (issue 33, "fewer thread
/// hand-offs").
final class ThreadLoop: DriverLoop, @unchecked Sendable {
    let clock: Clock
    let queue: DispatchQueue
    private var events: EventThread!
    private var http: RequestSender!
    private var timer: EventTimer!
    private var wake: () -> Void = {}
    /// The deadline the timer is armed for (`.max`: none), so rearming for the same tick costs nothing.
    private var armedWake: UInt64 = .max

    /// Throws when the wire client cannot be made (its TLS context: an unreadable `caFile`).
    init(name: String, clock: Clock, maxConnections: Int, caFile: String?,
         client: TargetClient = .curl) throws(TransportError) {
        self.clock = clock
        queue = DispatchQueue(label: name, qos: .userInteractive)
        var configuration = HTTPClient.Configuration()
        configuration.maxConnections = maxConnections
        configuration.caFile = caFile
        // Small batches: a due timer waits behind at most 8 socket events or 16 posted pushes (each up to
        // ~30 µs of work), not 32 and 256. Scenarios/scale.yaml side by side, 4 rounds each: lag max
        // 3.3–4.8 ms against 4.8–38 ms, p99 0.24–0.43 against 0.32–0.55 ms, CPU no different (issue 20).
        events = EventThread(queue: queue, name: name, batchSize: 8, postsPerBatch: 16, ownsItsWork: true,
                             scheduling: Self.workerScheduling)
        let made: TransportError? = events.sync {
            switch client {
            case .curl: http = HTTPClient(queue: queue, configuration: configuration, events: events)
            case .wire:
                do throws(TransportError) {
                    http = try WireSender(events: events, configuration: configuration)
                } catch {
                    events.stop()
                    return error
                }
            }
            timer = EventTimer(on: events) { [unowned self] in
                armedWake = .max
                wake()
            }
            let fifo = ThreadPriority.fifo
            if Self.workerScheduling.priority == fifo, ThreadScheduling.currentPolicy() != fifo.policy {
                Self.noteFifoRefused
            }
            return nil
        }
        if let made {
            events.waitUntilStopped()
            throw made
        }
    }

    var client: RequestSender { http }

    /// How the workers' threads share the cores: `CALLSTORM_WORKER_PRIORITY` (`ThreadScheduling`'s text, e.g.
    /// `normal/200us`), default `workerDefault`.
    static let workerScheduling = ThreadScheduling.fromEnvironment("CALLSTORM_WORKER_PRIORITY", or: .workerDefault)

    /// Said once a run when the kernel refused SCHED_FIFO (no CAP_SYS_NICE, RLIMIT_RTPRIO 0): the workers then run
    /// at SCHED_OTHER, and their lag may include other threads' turns on a busy machine.
    private static let noteFifoRefused: Void = {
        FileHandle.standardError.write(Data(("callstorm: the workers run at SCHED_OTHER: SCHED_FIFO needs "
            + "CAP_SYS_NICE or `ulimit -r 1`; on a busy machine their lag may include other threads' turns "
            + "(CALLSTORM_WORKER_PRIORITY=normal silences this)\n").utf8))
    }()

    /// Through the event thread's mailbox, like `post`, not `queue.async`: an async block woke one of libdispatch's
    /// pool threads per block (a semaphore post, that thread's two context switches, and the event thread's next
    /// `queue.sync` waiting for it when the block was still running). The wake-up path at 200 calls/s
    /// (scripts/perf-syscalls.sh wake, 2026-12-06): ~9,000 of its 43,000 context switches were those.
    func execute(_ work: @escaping () -> Void) { events.post(work) }

    func post(_ work: @escaping () -> Void) { events.post(work) }

    func sync<T>(_ work: () throws -> T) rethrows -> T { try events.sync(work) }

    func onWake(_ wake: @escaping () -> Void) { self.wake = wake }

    /// The wheel runs on `clock`, which tests may move by hand, so the deadline is carried over as a delay.
    func arm(wakeAt nanos: UInt64) {
        if nanos == armedWake { return }
        armedWake = nanos
        let now = clock.nowNanos()
        timer.arm(atMonotonicNanos: clinux_monotonic_ns() + (nanos > now ? nanos - now : 0))
    }

    func makeSIPPool(proxyHost: String, proxyPort: Int, tls: ClientTLS?, onEvent: @escaping SIPAgentEventHandler)
        -> (any SIPAgentPool)? {
        try? SIPClientPool(thread: events, proxyHost: proxyHost, proxyPort: proxyPort, clock: clock, tls: tls,
                           onEvent: onEvent)
    }

    func makeMediaStreams(ports: ClosedRange<Int>?, onEvent: @escaping MediaEventHandler) -> (any MediaStreams)? {
        UDPMediaStreams(thread: events, ports: ports, clock: clock, onEvent: onEvent)
    }

    func makeSocketPool(tls: ClientTLS?, limits: WebSocketClientPool.Limits,
                        onEvent: @escaping WebSocketClientPool.EventHandler) -> SocketPool? {
        WebSocketClientPool(thread: events, tls: tls, limits: limits, onEvent: onEvent)
    }

    func close() {
        timer.close()
        http.close()
        events.stop()
    }

    func waitUntilStopped() { events.waitUntilStopped() }
}

extension ThreadScheduling {
    /// The workers' threads unless `CALLSTORM_WORKER_PRIORITY` says otherwise: SCHED_FIFO at priority 1, so a worker
    /// whose timer comes due takes a core from any SCHED_OTHER or SCHED_BATCH thread at once (the embedded target's,
    /// the gateway's, other processes') instead of waiting out their slices; where the kernel refuses it the thread
    /// stays at SCHED_OTHER (`noteFifoRefused`). Each worker blocks in its wait after every turn, so the others
    /// keep what the workers leave. A short EEVDF slice (`normal/200us`) did not help in the lead's quiet A/B
    /// (docs/BENCHMARKS.md, "The workers' short slice"); `fifo` is "The workers at SCHED_FIFO" there.
    static let workerDefault = ThreadScheduling.fifo
}
