import CLinux
import CSSL
import EventPolling
import Locking
import SystemCalls
import struct Synchronization.Atomic
#if canImport(Glibc)
import Glibc
#endif

/// One event-loop thread of an `HTTPServer`: an epoll set, the connections it accepted, and a mailbox
/// through which handlers on other threads hand back responses.
///
/// The epoll set, wake-up eventfd and event buffers are `EpollSet`, as in the proxy's and the transport's loops;
/// the run loop is this server's own (mailbox, idle sweeps, accept pauses), see `EpollSet` for why.
///
/// Ownership rule (why `@unchecked Sendable` is sound): the fields under "Shared" are safe from any thread
/// (immutable, `Atomic`, or behind `mailbox`'s lock). Everything under "Loop thread only" — the connection
/// table, the local delivery queue, the scratch buffers — is touched only by the thread running `run()`;
/// `deliver(_:)` checks which thread it is on before touching `localDeliveries`. The eventfd is closed only
/// under the mailbox lock, so a late `respond` can never signal a reused file descriptor.
/// More than 15 stored properties on purpose: the loop's own tables and scratch buffers, each touched on every
/// wake-up; the ownership rule above groups them ("Shared", "Loop thread only").
final class EventLoop: @unchecked Sendable {
    /// A response travelling back to the connection and position it answers.
    struct Delivery: Sendable {
        var fd: Int32
        var connectionID: UInt64
        var sequence: UInt64
        var response: HTTPResponse
    }

    private struct Mailbox {
        var deliveries: [Delivery] = []
        var closed = false
    }

    /// epoll user data for the listening socket (the wake-up eventfd has `EpollSet.wakeTag`); connections use
    /// their fd.
    private static let listenTag = UInt64.max
    private static let maxEvents = 256
    static let readChunkBytes = 64 * 1024

    // MARK: - Shared

    let index: Int
    /// The epoll set and its wake-up eventfd, shared in shape with the other event loops (`EpollSet`).
    private let poller: EpollSet
    /// Connections change their interest with `epoll_ctl` on this set.
    var epollFD: Int32 { poller.fd }
    let handler: any HTTPHandler
    let counters: HTTPServerCounters
    let limits: Limits
    private let listenFD: Int32
    private let connectionIDs: ConnectionIDSource
    /// The server's TLS context: the listener's, or the one served inside CONNECT tunnels on a cleartext
    /// listener; nil when it speaks cleartext only.
    let tls: TLSContext?
    private let mailbox = Mutex(Mailbox())
    private let stopRequested = Atomic<Bool>(false)
    /// The running thread's `pthread_t`, 0 when not running (cleared before the thread exits, so a later
    /// thread that reuses the id is not mistaken for this loop).
    private let threadID = Atomic<UInt>(0)

    /// Per-connection limits and timings, fixed at start.
    struct Limits: Sendable {
        var maxHeaderBytes: Int
        var maxBodyBytes: Int
        var idleTimeoutNanoseconds: UInt64
        var http2 = true
        var maxConcurrentStreams = 1000
        var lingerNanoseconds: UInt64 = 2_000_000_000
        /// Requests parsed but not yet answered on one connection before the loop stops reading it.
        var maxPipelinedRequests = 64
        /// Unsent response bytes on one connection before the loop stops reading it.
        var writeHighWaterBytes = 1 << 20
        /// Whether the listener itself speaks TLS (else `tls`, when set, serves CONNECT tunnels only).
        var listenerIsTLS = false
        /// CONNECT targets served as tunnels; nil passes CONNECT to the handler.
        var connect: ConnectPolicy?
    }

    // MARK: - Loop thread only

    /// Connections by file descriptor, for O(1) lookup from epoll data.
    private var connections: [LoopConnection?] = []
    private var localDeliveries: [Delivery] = []
    private var spareDeliveries: [Delivery] = []
    private var dirty: [LoopConnection] = []
    /// The monotonic time of the current loop iteration, for idle bookkeeping without a clock call per event.
    private(set) var now: UInt64 = 0
    /// Where reads land before being parsed in place.
    let readScratch: UnsafeMutableRawBufferPointer
    private var acceptPausedUntil: UInt64?

    // MARK: - Life cycle

    /// Creates the loop's epoll set and eventfd and registers the listening socket. Called by `HTTPServer`
    /// before the thread starts; on failure nothing is left open.
    init(
        index: Int, listenFD: Int32, handler: any HTTPHandler, counters: HTTPServerCounters,
        connectionIDs: ConnectionIDSource, limits: Limits, tls: TLSContext? = nil
    ) throws(HTTPServerError) {
        do {
            poller = try EpollSet(capacity: Self.maxEvents)
        } catch {
            throw .systemCallFailed(call: error.call, errno: error.errno)
        }
        guard poller.add(listenFD, events: CLINUX_EPOLLIN | CLINUX_EPOLLEXCLUSIVE, tag: Self.listenTag) else {
            let code = errno
            poller.close()
            throw .systemCallFailed(call: "epoll_ctl", errno: code)
        }
        self.index = index
        self.listenFD = listenFD
        self.handler = handler
        self.counters = counters
        self.connectionIDs = connectionIDs
        self.limits = limits
        self.tls = tls
        self.readScratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.readChunkBytes, alignment: 16)
    }

    deinit {
        readScratch.deallocate()
    }

    /// Closes the epoll set and eventfd of a loop whose thread never started.
    func discardUnstarted() {
        closeWakeAndEpoll()
    }

    /// Asks the loop to finish: it closes every connection and its own descriptors, then `run()` returns.
    /// Safe from any thread.
    func requestStop() {
        stopRequested.store(true, ordering: .releasing)
        mailbox.withLock { box in
            if !box.closed { poller.wake() }
        }
    }

    // MARK: - Delivering responses (any thread)

    /// Hands a response to the loop. On the loop thread it is queued locally and written after the current
    /// event; elsewhere it goes through the locked mailbox and the eventfd wakes the loop. Dropped when the
    /// loop has shut down.
    func deliver(_ delivery: Delivery) {
        if threadID.load(ordering: .relaxed) == UInt(pthread_self()) {
            localDeliveries.append(delivery)
            return
        }
        mailbox.withLock { box in
            guard !box.closed else { return }
            box.deliveries.append(delivery)
            // Only the first delivery since the loop last emptied the mailbox needs to wake it.
            if box.deliveries.count == 1 { poller.wake() }
        }
    }

    // MARK: - The loop (loop thread)

    /// Runs until `requestStop()`. Must be called once, on the loop's own thread.
    func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        let sweepInterval = max(10_000_000, min(1_000_000_000, limits.idleTimeoutNanoseconds / 4))
        now = clinux_monotonic_ns()
        var nextSweep = now &+ sweepInterval

        while !stopRequested.load(ordering: .acquiring) {
            var waitNanoseconds = nextSweep > now ? nextSweep - now : 0
            if let resume = acceptPausedUntil {
                waitNanoseconds = min(waitNanoseconds, resume > now ? resume - now : 0)
            }
            let timeoutMilliseconds = Int32((waitNanoseconds + 999_999) / 1_000_000)
            let count = poller.wait(timeoutMillis: timeoutMilliseconds)
            now = clinux_monotonic_ns()
            var woken = false
            if count > 0 {
                for i in 0..<count {
                    let tag = poller.tags[i]
                    if tag == Self.listenTag {
                        acceptConnections()
                    } else if tag == EpollSet.wakeTag {
                        woken = true
                    } else {
                        let fd = Int(tag)
                        if fd < connections.count, let connection = connections[fd] {
                            connection.handleEvents(poller.events[i])
                        }
                    }
                }
            }
            if woken {
                poller.drainWake()
                let batch = mailbox.withLock { box -> [Delivery] in
                    var taken: [Delivery] = []
                    swap(&taken, &box.deliveries)
                    return taken
                }
                store(batch)
            }
            settle()
            if now >= nextSweep {
                sweep()
                nextSweep = now &+ sweepInterval
            }
            if let resume = acceptPausedUntil, now >= resume {
                acceptPausedUntil = nil
                poller.add(listenFD, events: CLINUX_EPOLLIN | CLINUX_EPOLLEXCLUSIVE, tag: Self.listenTag)
            }
        }
        shutDown()
    }

    /// Hands delivered responses to their connections, then lets each touched connection write, until no
    /// handler answered synchronously any more.
    private func settle() {
        while !localDeliveries.isEmpty || !dirty.isEmpty {
            if !localDeliveries.isEmpty {
                swap(&spareDeliveries, &localDeliveries)
                store(spareDeliveries)
                spareDeliveries.removeAll(keepingCapacity: true)
            }
            let touched = dirty
            dirty.removeAll(keepingCapacity: true)
            for connection in touched {
                connection.isDirty = false
                if !connection.isClosed { connection.makeProgress() }
            }
        }
    }

    private func store(_ deliveries: [Delivery]) {
        // Through the buffer, by index: `for delivery in` copied each delivery out (its response's headers and
        // body retained and released, ~12 a delivery) only to read it.
        deliveries.withUnsafeBufferPointer { all in
            for i in all.indices {
                let fd = Int(all[i].fd)
                // A stale answer (connection closed, fd reused by a newer connection) is dropped here.
                guard fd < connections.count, let connection = connections[fd],
                      connection.id == all[i].connectionID else { continue }
                if connection.store(all[i].sequence, all[i].response) && !connection.isDirty {
                    connection.isDirty = true
                    dirty.append(connection)
                }
            }
        }
    }

    // MARK: - Accepting (loop thread)

    private func acceptConnections() {
        var accepted = 0
        // Bounded so one loop cannot starve its connections during an accept storm; level triggering
        // brings it back for the rest.
        while accepted < 128 {
            let fd = SystemCall.accept(listenFD)
            if fd < 0 {
                switch errno {
                case ECONNABORTED, EPROTO:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: the backlog would keep the listener readable and spin the loop.
                    // Stop listening for a moment instead.
                    poller.remove(listenFD)
                    acceptPausedUntil = now &+ 100_000_000
                    return
                default:
                    return
                }
            }
            accepted += 1
            _ = clinux_set_nodelay(fd)
            guard poller.add(fd, events: CLINUX_EPOLLIN, tag: UInt64(fd)) else {
                close(fd)
                continue
            }
            let id = connectionIDs.next()
            let connection: LoopConnection
            if tls != nil || limits.http2 || limits.connect != nil {
                connection = ConnectionStart(fd: fd, id: id, loop: self)
            } else {
                connection = HTTP1Connection(fd: fd, id: id, loop: self, stream: ByteStream(fd: fd))
            }
            let slot = Int(fd)
            if slot >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: slot + 1 - connections.count))
            }
            connections[slot] = connection
            counters.connectionsAccepted.add(1, ordering: .relaxed)
            counters.connectionsOpen.add(1, ordering: .relaxed)
        }
    }

    // MARK: - Closing (loop thread)

    /// Closes a connection's socket and forgets it. Must be called on the loop thread, once per connection.
    func closeConnection(_ connection: LoopConnection) {
        guard !connection.isClosed else { return }
        connection.isClosed = true
        let slot = Int(connection.fd)
        if slot < connections.count, connections[slot] === connection {
            connections[slot] = nil
        }
        // close() also removes the fd from the epoll set.
        connection.stream.close()
        counters.connectionsOpen.subtract(1, ordering: .relaxed)
        handler.connectionClosed(connection.id)
    }

    /// Puts `next` in `current`'s slot (same socket, same id) once the protocol is known. `current` is marked
    /// closed without closing the socket, so nothing that still holds it can act on it.
    func replace(_ current: LoopConnection, with next: LoopConnection) {
        let slot = Int(current.fd)
        guard slot < connections.count, connections[slot] === current else { return }
        current.isClosed = true
        connections[slot] = next
    }

    /// Adds a connection to the list that `settle()` makes progress on.
    func markDirty(_ connection: LoopConnection) {
        guard !connection.isDirty else { return }
        connection.isDirty = true
        dirty.append(connection)
    }

    /// Closes idle, stuck and lingering connections.
    private func sweep() {
        for case let connection? in connections {
            connection.checkTimers()
        }
    }

    private func shutDown() {
        for case let connection? in connections {
            closeConnection(connection)
        }
        connections.removeAll()
        localDeliveries.removeAll()
        dirty.removeAll()
        closeWakeAndEpoll()
        threadID.store(0, ordering: .releasing)
    }

    /// The eventfd is closed under the mailbox lock, so a late `deliver` never signals a reused descriptor.
    private func closeWakeAndEpoll() {
        mailbox.withLock { box in
            guard !box.closed else { return }
            box.closed = true
            box.deliveries.removeAll()
            poller.close()
        }
    }
}

/// Hands out connection ids unique across every loop of every server in the process.
final class ConnectionIDSource: Sendable {
    static let shared = ConnectionIDSource()
    private let counter = Atomic<UInt64>(0)

    func next() -> UInt64 {
        counter.wrappingAdd(1, ordering: .relaxed).newValue
    }
}
