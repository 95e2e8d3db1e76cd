import Bytes
import CLinux
import Determinism
import EventPolling
import Heaps
import Synchronization
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// The proxy's event-loop thread: the listening socket, every connection, the timer heap for toxic delays.
///
/// The epoll set, wake-up eventfd and event buffers are `EpollSet`, as in the HTTP server's and the transport's
/// loops; the run loop is the proxy's own (a timer heap on the injected `Clock`, toxic lists applied between
/// waits), see `EpollSet` for why.
///
/// Ownership rule (why `@unchecked Sendable` is sound): `stopRequested`, `shared` and the immutable fields are
/// safe from any thread; everything under "Loop thread only" is touched only inside `run()`, and the file
/// descriptors it opened are closed by `run()` itself before it returns.
/// More than 15 stored properties on purpose: the loop's own tables, timer heap and counters, each touched on every
/// wake-up; the ownership rule above groups them.
final class ProxyLoop: @unchecked Sendable {
    private static let listenTag = UInt64.max
    private static let maxEvents = 256
    private static let readChunk = 64 * 1024
    /// Bytes held for one direction (in toxics and unwritten) before the proxy stops reading its sender.
    static let highWater = 1 << 20
    /// Longest epoll wait: a safety net only, as a hand-moved test clock wakes the loop itself (`wakeOnMove`).
    private static let maxWaitMillis: Int32 = 250

    /// The epoll set and its wake-up eventfd, shared in shape with the other event loops (`EpollSet`).
    let poller: EpollSet
    let listenFD: Int32
    let upstreamHost: String
    let upstreamPort: Int
    let seed: UInt64
    let clock: any Clock
    let shared: ProxyShared
    private let stopRequested = Atomic<Bool>(false)

    // MARK: - Loop thread only

    private var connections: [UInt64: ProxyConnection] = [:]
    private var nextConnection: UInt64 = 1
    /// Connection ids by the deadline their toxics next want service at. A plan that changes pushes its new
    /// deadline; the old entry is skipped when it comes out (it no longer matches `scheduledAt`).
    private var timers = MinHeap<UInt64, UInt64>()
    private var toxics: [BuiltToxic] = []
    private var appliedGeneration = UInt64.max
    /// When each toxic in the list was added, for ramped toxicities.
    private var addedAt: [String: UInt64] = [:]
    private var stats = ProxyStats()
    private var statsDirty = true
    private var newDecisions: [ToxicDecisionRecord] = []
    private var now: UInt64 = 0
    private let scratch: UnsafeMutableRawBufferPointer

    // MARK: - Life cycle

    init(listenFD: Int32, upstreamHost: String, upstreamPort: Int, seed: UInt64, clock: any Clock,
         shared: ProxyShared) throws(FaultProxyError) {
        do {
            poller = try EpollSet(capacity: Self.maxEvents)
        } catch {
            throw .systemCallFailed(call: error.call, errno: error.errno)
        }
        guard poller.add(listenFD, events: CLINUX_EPOLLIN, tag: Self.listenTag) else {
            let code = errno
            poller.close()
            throw .systemCallFailed(call: "epoll_ctl", errno: code)
        }
        self.listenFD = listenFD
        self.upstreamHost = upstreamHost
        self.upstreamPort = upstreamPort
        self.seed = seed
        self.clock = clock
        self.shared = shared
        scratch = .allocate(byteCount: Self.readChunk, alignment: 16)
    }

    deinit {
        scratch.deallocate()
    }

    /// Asks `run()` to finish; safe from any thread.
    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        poller.wake()
    }

    /// Makes the loop take a turn soon (to apply a new toxic list); safe from any thread.
    func requestWake() { poller.wake() }

    /// Closes what `init` opened when the thread never ran.
    func discardUnstarted() {
        poller.close()
    }

    /// The loop. Returns after closing every connection socket, the epoll set and the eventfd.
    func run() {
        // A hand-moved clock wakes the loop when it moves, so due delays fire without a test nudging the proxy.
        let waker = clock.wakeOnMove { [poller] in poller.wake() }
        while !stopRequested.load(ordering: .acquiring) {
            now = clock.nowNanos()
            applyToxicsIfChanged()
            let count = poller.wait(timeoutMillis: waitMillis())
            now = clock.nowNanos()
            if count > 0 {
                for i in 0..<count { handle(tag: poller.tags[i], events: poller.events[i]) }
            }
            fireTimers()
            publishIfDirty()
        }
        if let waker { clock.stopWaking(waker) }  // before the eventfd it writes to closes
        for connection in Array(connections.values) { closeConnection(connection) }
        publishIfDirty()
        poller.close()
    }

    // MARK: - Events

    private func handle(tag: UInt64, events: UInt32) {
        switch tag {
        case Self.listenTag: acceptAll()
        case EpollSet.wakeTag: poller.drainWake()
        default:
            guard let connection = connections[tag >> 1] else { return }
            let isUpstream = tag & 1 == 1
            if isUpstream && connection.connecting {
                finishConnect(connection)
                return
            }
            let flow = isUpstream ? connection.down : connection.up
            let fd = isUpstream ? connection.upstreamFD : connection.clientFD
            if events & CLINUX_EPOLLERR != 0, clinux_socket_error(fd) != 0 {
                closeConnection(connection)
                return
            }
            if events & (CLINUX_EPOLLIN | CLINUX_EPOLLHUP) != 0 && flow.inputOpen {
                guard read(from: fd, into: flow) else {
                    closeConnection(connection)
                    return
                }
            }
            service(connection)
        }
    }

    /// One read into `flow`'s chain. False when the socket failed (the peer reset it).
    private func read(from fd: Int32, into flow: ProxyFlow) -> Bool {
        switch SystemCall.receive(fd, into: scratch.baseAddress!, count: Self.readChunk) {
        case .bytes(let n):
            flow.pipeline.push(.data(Array(UnsafeRawBufferPointer(rebasing: scratch[0..<n]))), now: now)
        case .closed:
            flow.inputOpen = false
            flow.pipeline.push(.end, now: now)
        case .wouldBlock:
            break
        case .error:
            return false
        }
        return true
    }

    private func acceptAll() {
        for _ in 0..<64 {
            let clientFD = SystemCall.accept(listenFD)
            guard clientFD >= 0 else { return }
            _ = clinux_set_nodelay(clientFD)
            stats.connectionsAccepted += 1
            statsDirty = true
            let upstreamFD = clinux_connect_tcp(upstreamHost, Int32(upstreamPort))
            guard upstreamFD >= 0 else {
                stats.upstreamConnectFailures += 1
                close(clientFD)
                continue
            }
            let id = nextConnection
            nextConnection += 1
            let connection = ProxyConnection(id: id, clientFD: clientFD, upstreamFD: upstreamFD)
            connections[id] = connection
            configure(connection)
            service(connection)
        }
    }

    private func finishConnect(_ connection: ProxyConnection) {
        guard clinux_socket_error(connection.upstreamFD) == 0 else {
            stats.upstreamConnectFailures += 1
            closeConnection(connection)
            return
        }
        connection.connecting = false
        _ = clinux_set_nodelay(connection.upstreamFD)
        service(connection)
    }

    // MARK: - Toxics

    private func applyToxicsIfChanged() {
        guard shared.generation.load(ordering: .acquiring) != appliedGeneration else { return }
        (appliedGeneration, toxics) = shared.toxics()
        var added: [String: UInt64] = [:]
        for built in toxics { added[built.spec.name] = addedAt[built.spec.name] ?? now }
        addedAt = added
        for connection in Array(connections.values) {
            configure(connection)
            if connections[connection.id] != nil { service(connection) }
        }
    }

    /// Puts the current toxic list on a connection, logging each toxic's decision the first time it meets it.
    private func configure(_ connection: ProxyConnection) {
        for built in toxics where connection.decided[built.spec.name] == nil {
            var toxicity = built.spec.toxicity
            if built.spec.rampNanos > 0 {
                let since = now &- (addedAt[built.spec.name] ?? now)
                toxicity *= min(1, Double(since) / Double(built.spec.rampNanos))
            }
            let applied = ToxicDecision.applies(
                seed: seed, connection: connection.id, toxic: built.spec.name, toxicity: toxicity)
            connection.decided[built.spec.name] = applied
            newDecisions.append(ToxicDecisionRecord(connection: connection.id, toxic: built.spec.name, applied: applied))
            if applied {
                stats.toxics[built.spec.name, default: ToxicStats()].connectionsSelected += 1
            } else {
                stats.toxics[built.spec.name, default: ToxicStats()].connectionsSkipped += 1
            }
            statsDirty = true
        }
        connection.up.pipeline.reconfigure(toxics, seed: seed, now: now, decided: connection.decided)
        connection.down.pipeline.reconfigure(toxics, seed: seed, now: now, decided: connection.decided)
    }

    // MARK: - Moving bytes

    /// Releases what is due, writes what it can, carries out ends, closes and resets, then updates the
    /// connection's epoll interest and timer.
    private func service(_ connection: ProxyConnection) {
        connection.up.pipeline.advance(now: now)
        connection.down.pipeline.advance(now: now)
        harvest(connection)
        if let name = connection.up.pipeline.resetBy ?? connection.down.pipeline.resetBy {
            stats.toxics[name, default: ToxicStats()].resets += 1
            stats.resets += 1
            resetConnection(connection)
            return
        }
        for isUp in [true, false] {
            let flow = isUp ? connection.up : connection.down
            let fd = isUp ? connection.upstreamFD : connection.clientFD
            flow.collect()
            if isUp && connection.connecting { continue }
            guard write(flow, to: fd, upstream: isUp) else {
                closeConnection(connection)
                return
            }
            guard flow.unwritten == 0, let terminal = flow.terminal else { continue }
            if terminal == .close {
                closeConnection(connection)
                return
            }
            if !flow.outputShut {
                flow.outputShut = true
                shutdown(fd, Int32(SHUT_WR))
            }
        }
        if !connection.up.inputOpen && !connection.down.inputOpen && connection.up.isIdle && connection.down.isIdle {
            closeConnection(connection)
            return
        }
        updateInterest(connection)
        schedule(connection)
    }

    /// Writes as much of `flow`'s buffer as the socket takes. False on a write error.
    private func write(_ flow: ProxyFlow, to fd: Int32, upstream: Bool) -> Bool {
        let drain = flow.write(to: fd)
        if drain.progressed {
            if upstream { stats.bytesUpstream += drain.written } else { stats.bytesDownstream += drain.written }
            statsDirty = true
        }
        return !drain.failed
    }

    private func harvest(_ connection: ProxyConnection) {
        for pipeline in [connection.up.pipeline, connection.down.pipeline] {
            for stage in pipeline.stages {
                let (dropped, closes) = stage.harvest()
                guard dropped != 0 || closes != 0 else { continue }
                stats.toxics[stage.spec.name, default: ToxicStats()].bytesDropped += dropped
                stats.toxics[stage.spec.name, default: ToxicStats()].closes += closes
                stats.toxicCloses += closes
                statsDirty = true
            }
        }
    }

    private func updateInterest(_ connection: ProxyConnection) {
        func reading(_ flow: ProxyFlow) -> UInt32 {
            flow.inputOpen && flow.pipeline.pendingBytes + flow.unwritten < Self.highWater ? CLINUX_EPOLLIN : 0
        }
        let client = reading(connection.up) | (connection.down.unwritten > 0 ? CLINUX_EPOLLOUT : 0)
        let upstream = connection.connecting ? CLINUX_EPOLLOUT
            : reading(connection.down) | (connection.up.unwritten > 0 ? CLINUX_EPOLLOUT : 0)
        connection.clientInterest = setInterest(
            connection.clientFD, from: connection.clientInterest, to: client, tag: connection.id << 1)
        connection.upstreamInterest = setInterest(
            connection.upstreamFD, from: connection.upstreamInterest, to: upstream, tag: connection.id << 1 | 1)
    }

    /// A socket with no interest leaves the epoll set, so a hung-up peer is not reported on every wait.
    private func setInterest(_ fd: Int32, from old: UInt32, to new: UInt32, tag: UInt64) -> UInt32 {
        guard old != new else { return old }
        let op: Int32 = new == 0 ? 2 : (old == 0 ? 1 : 3)
        _ = clinux_epoll_ctl(poller.fd, op, fd, new, tag)
        return new
    }

    // MARK: - Timers

    private func schedule(_ connection: ProxyConnection) {
        guard let deadline = [connection.up.pipeline.nextDeadline, connection.down.pipeline.nextDeadline]
            .compactMap({ $0 }).min() else {
            connection.scheduledAt = .max
            return
        }
        guard deadline != connection.scheduledAt else { return }
        connection.scheduledAt = deadline
        timers.push(connection.id, at: deadline)
    }

    private func fireTimers() {
        while let (at, id) = timers.popDue(now) {
            guard let connection = connections[id], connection.scheduledAt == at else { continue }
            connection.scheduledAt = .max
            service(connection)
        }
    }

    private func waitMillis() -> Int32 {
        guard let at = timers.top?.priority else { return Self.maxWaitMillis }
        guard at > now else { return 0 }
        let millis = (at - now + 999_999) / 1_000_000
        return Int32(min(UInt64(Self.maxWaitMillis), millis))
    }

    // MARK: - Closing

    private func closeConnection(_ connection: ProxyConnection) {
        guard connections.removeValue(forKey: connection.id) != nil else { return }
        close(connection.clientFD)
        close(connection.upstreamFD)
        statsDirty = true
    }

    private func resetConnection(_ connection: ProxyConnection) {
        _ = clinux_set_linger_reset(connection.clientFD)
        _ = clinux_set_linger_reset(connection.upstreamFD)
        closeConnection(connection)
    }

    private func publishIfDirty() {
        guard statsDirty || !newDecisions.isEmpty else { return }
        stats.connectionsOpen = connections.count
        shared.publish(stats, decisions: newDecisions)
        newDecisions.removeAll(keepingCapacity: true)
        statsDirty = false
    }
}
