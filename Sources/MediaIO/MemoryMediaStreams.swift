import Media

/// Media streams whose datagrams travel a `MediaWire` in memory: the embedded twin of `UDPMediaStreams`. The
/// streams are the same `MediaSession`s in the same `MediaStreamTable`; only the transport is memory, so a test
/// under a `ManualClock` sees exact counts for the loss, delay and reordering it injects on the wire (or through
/// `datagramFilter`, as a run's chaos would).
///
/// Differences from the real streams, of timing only: sends happen at their deadline exactly (the real ones when
/// the timerfd fires), and nothing is lost that the test did not drop.
/// Thread rule: the wire's thread calls everything.
public final class MemoryMediaStreams: MediaStreams, MediaWireNode {
    private let wire: MediaWire
    private let host: String
    private let onEvent: MediaEventHandler
    private var table = MediaStreamTable()
    private var endpoints: [Int: MediaEndpoint] = [:]
    private var byEndpoint: [MediaEndpoint: Int] = [:]
    /// Nothing refuses a send in memory.
    public var sendErrors: Int { 0 }
    public var datagramFilter: MediaDatagramFilter? {
        get { table.filter }
        set { table.filter = newValue }
    }

    public init(wire: MediaWire, host: String = "127.0.0.1", onEvent: @escaping MediaEventHandler) {
        self.wire = wire
        self.host = host
        self.onEvent = onEvent
    }

    public func open(_ settings: MediaStreamSettings) -> Result<Int, MediaIOError> {
        let id = table.add(settings)
        let endpoint = wire.bind(self, host: host)
        endpoints[id] = endpoint
        byEndpoint[endpoint] = id
        return .success(id)
    }

    public func localEndpoint(_ id: Int) -> MediaEndpoint? { endpoints[id] }

    public func start(_ id: Int, remote: MediaEndpoint, direction: MediaDirection, sendAfterNanos: UInt64) {
        table.start(id, remote: remote, direction: direction, now: wire.clock.nowNanos(),
                    sendAfterNanos: sendAfterNanos)
    }

    public func update(_ id: Int, remote: MediaEndpoint, direction: MediaDirection) {
        table.update(id, remote: remote, direction: direction, now: wire.clock.nowNanos(), onEvent: onEvent)
    }

    public func offered(_ id: Int, direction: MediaDirection) { table.offered(id, direction: direction) }

    public func report(_ id: Int) -> MediaStreamReport? { table.report(id) }

    @discardableResult
    public func close(_ id: Int) -> MediaStreamReport? {
        guard let endpoint = endpoints.removeValue(forKey: id) else { return nil }
        byEndpoint[endpoint] = nil
        wire.unbind(endpoint)
        return table.remove(id, now: wire.clock.nowNanos(), onEvent: onEvent)
    }

    public func closeAll() {
        for id in Array(endpoints.keys).sorted() { close(id) }
    }

    // MARK: - Wire node

    func receive(_ datagram: MediaDatagram, now: UInt64) {
        guard let id = byEndpoint[datagram.to] else { return }
        datagram.bytes.withUnsafeBytes { table.receive(id, $0, now: now, onEvent: onEvent) }
    }

    var nextDeadline: UInt64? { table.nextDeadline }

    func advance(to now: UInt64) {
        let reads = table.runDue(now: now, send: { [self] id, bytes, remote in
            guard let from = endpoints[id] else { return }
            wire.send(bytes, from: from, to: remote)
        }, onEvent: onEvent)
        for item in reads {
            item.bytes.withUnsafeBytes { table.receive(item.stream, $0, now: now, filtered: false, onEvent: onEvent) }
        }
    }
}
