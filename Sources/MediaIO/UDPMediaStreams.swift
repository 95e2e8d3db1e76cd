import CLinux
import Determinism
import EventPolling
import Media
import SystemCalls
#if canImport(Glibc)
import Glibc
#endif

/// Media streams over real UDP on one `EventThread` (the Driver's per-worker epoll thread, beside its HTTP
/// transfers and SIP agents): one non-blocking socket per stream, bound for real to `host` on an even port of
/// `ports` (RFC 3550 §11: RTP on an even port, RTCP on the next odd one) or an ephemeral port; datagrams read
/// when epoll says so, up to 16 per `recvmmsg`; sends driven by one `EventTimer` armed at the earliest deadline of
/// all streams (a heap, `MediaStreamTable`), so no thread and no timer per stream.
///
/// One timer wake per tick, not per stream: each stream's first send (and so its whole 20 ms plan) is put on a
/// grid of `tickNanos` (1 ms, `SendGrid`), and the timer is armed on that grid, so every stream due in a tick is
/// sent on one wake, its packets through one `sendmmsg` per socket (`DatagramSendBatch`). At 400 streams that is
/// at most 1,000 timer wakes a second instead of 20,000. A stream's first packet goes up to one tick later than
/// the app's start-up asked; its lag is measured against the plan on the grid, so the harness's own lateness is
/// still all reported.
///
/// Thread rule: create it, call every method, and receive events on `thread.queue`.
public final class UDPMediaStreams: MediaStreams, @unchecked Sendable {
    private let thread: EventThread
    private let clock: any Clock
    private let host: String
    private let ports: ClosedRange<Int>?
    private let onEvent: MediaEventHandler
    private var table = MediaStreamTable()
    private var sockets: [Int: (fd: Int32, port: Int, remote: sockaddr_in?)] = [:]
    private var byFD: [Int32: Int] = [:]
    private var handlerID: UInt32 = 0
    private var timer: EventTimer?
    private var armedAt: UInt64?
    /// The next even port of `ports` to try.
    private var cursor: Int
    private let batch = DatagramBatch(capacity: 16)
    private let sends = DatagramSendBatch(capacity: 16)
    /// The grid every stream's sends and the timer sit on.
    let grid: SendGrid
    /// Datagrams the kernel refused, and those to a remote that is not an IPv4 literal.
    public var sendErrors: Int { sends.failures }
    public var datagramFilter: MediaDatagramFilter? {
        get { table.filter }
        set { table.filter = newValue }
    }

    /// - Parameters:
    ///   - host: the IPv4 address streams bind to and their SDP names (loopback for tests and local targets).
    ///   - ports: where to bind (even ports only); nil binds ephemeral ports.
    ///   - clock: must run with CLOCK_MONOTONIC (the timer is armed on it): `MonotonicClock` in a run.
    ///   - tickNanos: the grid sends and checks are put on (1 ms; 1 ns puts each on its own instant).
    public init(thread: EventThread, host: String = "127.0.0.1", ports: ClosedRange<Int>? = nil,
                clock: any Clock = MonotonicClock(), tickNanos: UInt64 = 1_000_000,
                onEvent: @escaping MediaEventHandler) {
        self.thread = thread
        grid = SendGrid(tickNanos: tickNanos)
        self.clock = clock
        self.host = host
        self.ports = ports
        self.onEvent = onEvent
        cursor = ports.map { $0.lowerBound + $0.lowerBound % 2 } ?? 0
        handlerID = thread.register(ready: { [unowned self] fd, _ in readable(fd) })
        timer = EventTimer(on: thread) { [unowned self] in tick() }
    }

    public func open(_ settings: MediaStreamSettings) -> Result<Int, MediaIOError> {
        guard var address = Self.ipv4(host, port: 0) else { return .failure(.badAddress(host)) }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                            | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.socket(call: "socket", errno: errno)) }
        switch bind(fd, &address) {
        case .failure(let error):
            Glibc.close(fd)
            return .failure(error)
        case .success(let port):
            let id = table.add(settings)
            sockets[id] = (fd, port, nil)
            byFD[fd] = id
            thread.add(fd, events: CLINUX_EPOLLIN, handler: handlerID)
            return .success(id)
        }
    }

    /// Binds `fd` to the next free even port of the range (or an ephemeral one); returns the port.
    private func bind(_ fd: Int32, _ address: inout sockaddr_in) -> Result<Int, MediaIOError> {
        guard let ports else {
            guard Self.bind(fd, &address, port: 0) == 0 else { return .failure(.socket(call: "bind", errno: errno)) }
            return .success(Int(clinux_local_port(fd)))
        }
        let tries = (ports.count + 1) / 2
        for _ in 0..<tries {
            let port = cursor
            cursor = cursor + 2 > ports.upperBound ? ports.lowerBound + ports.lowerBound % 2 : cursor + 2
            guard ports.contains(port) else { continue }
            if Self.bind(fd, &address, port: port) == 0 { return .success(port) }
            guard errno == EADDRINUSE else { return .failure(.socket(call: "bind", errno: errno)) }
        }
        return .failure(.noFreePort(ports))
    }

    public func localEndpoint(_ id: Int) -> MediaEndpoint? {
        sockets[id].map { MediaEndpoint(host: host, port: $0.port) }
    }

    public func start(_ id: Int, remote: MediaEndpoint, direction: MediaDirection, sendAfterNanos: UInt64) {
        guard sockets[id] != nil else { return }
        sockets[id]!.remote = Self.ipv4(remote.host, port: remote.port)
        let now = clock.nowNanos()
        table.start(id, remote: remote, direction: direction, now: now,
                    sendAfterNanos: grid.sendAfter(now: now, asked: sendAfterNanos))
        rearm()
    }

    public func update(_ id: Int, remote: MediaEndpoint, direction: MediaDirection) {
        guard sockets[id] != nil else { return }
        sockets[id]!.remote = Self.ipv4(remote.host, port: remote.port)
        table.update(id, remote: remote, direction: direction, now: clock.nowNanos(), onEvent: onEvent)
        rearm()
    }

    public func offered(_ id: Int, direction: MediaDirection) { table.offered(id, direction: direction) }

    public func report(_ id: Int) -> MediaStreamReport? { table.report(id) }

    @discardableResult
    public func close(_ id: Int) -> MediaStreamReport? {
        guard let socket = sockets.removeValue(forKey: id) else { return nil }
        // A stream closed from an event of the tick under way (a hang-up on one-way audio) sends what it owed
        // first: the fd may be reused by the next `open` before the tick's batch goes out.
        if sends.pending > 0 { sends.flush() }
        byFD[socket.fd] = nil
        thread.remove(socket.fd)
        Glibc.close(socket.fd)
        return table.remove(id, now: clock.nowNanos(), onEvent: onEvent)
    }

    public func closeAll() {
        for id in Array(sockets.keys).sorted() { close(id) }
        timer?.close()
        timer = nil
        thread.unregister(handlerID)
    }

    // MARK: - Event thread

    /// Drains `fd` with `recvmmsg`, at most 64 datagrams a wake (a batch short of its capacity means drained).
    private func readable(_ fd: Int32) {
        guard let id = byFD[fd] else { return }
        for _ in 0..<4 {
            guard case .bytes(let n) = SystemCall.receiveDatagrams(fd, into: batch) else { break }
            let now = clock.nowNanos()
            for i in 0..<n { table.receive(id, batch[i], now: now, onEvent: onEvent) }
            if n < batch.capacity { break }
        }
        rearm()
    }

    private func tick() {
        armedAt = nil
        let now = clock.nowNanos()
        let reads = table.runDue(now: now, send: { [self] id, bytes, _ in send(id, bytes) }, onEvent: onEvent)
        sends.flush()
        for item in reads {
            item.bytes.withUnsafeBytes { table.receive(item.stream, $0, now: now, filtered: false, onEvent: onEvent) }
        }
        rearm()
    }

    /// Queues one packet for the tick's `sendmmsg` (flushed at the end of the tick). A remote that is not an IPv4
    /// literal (an SDP naming a host) cannot be sent to: each packet is a send error, so what the far end misses is
    /// the harness's, never counted as the network's loss.
    private func send(_ id: Int, _ bytes: [UInt8]) {
        guard let socket = sockets[id] else { return }
        guard let remote = socket.remote else {
            sends.countUnaddressable()
            return
        }
        bytes.withUnsafeBytes { sends.append(socket.fd, $0, to: remote) }
    }

    /// Arms the timer at the earliest deadline (on the grid) when that moved earlier (or nothing is armed).
    private func rearm() {
        guard let next = table.nextDeadline else { return }
        let due = grid.onGrid(next)
        if let armedAt, armedAt <= due { return }
        armedAt = due
        let now = clock.nowNanos()
        timer?.arm(atMonotonicNanos: clinux_monotonic_ns() + (due > now ? due - now : 0))
    }

    // MARK: - Addresses

    static func ipv4(_ host: String, port: Int) -> sockaddr_in? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        return address
    }

    private static func bind(_ fd: Int32, _ address: inout sockaddr_in, port: Int) -> Int32 {
        address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}
