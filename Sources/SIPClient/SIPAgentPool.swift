/// What a pool tells its owner of an agent: the agent's id and what it heard (`SIPEvent`), in order.
public typealias SIPAgentEventHandler = (_ agent: Int, _ event: SIPEvent) -> Void

/// A set of `SIPUserAgent`s whose bytes some transport carries: the seam the Driver's SIP signaling talks to.
/// `SIPClientPool` carries them over real sockets on an epoll thread; `MemorySIPPool` (SIPEmbedded) carries them
/// through memory under a manual clock, so the Driver's SIP mapping runs on the embedded loop.
///
/// Rules every conformer keeps, as `SIPClientPool` does: `perform` runs the command with the clock's time, then
/// sends what the agent queued and reports its events before it returns (so an event a command causes at once,
/// such as `.ended` after `decline`, is seen inside `perform`); the `datagramFilter` decides every UDP datagram
/// sent or read (TCP streams are never filtered); `counters` keeps the books of closed agents.
/// Thread rule: one owner thread calls everything, and events are reported on it.
public protocol SIPAgentPool: AnyObject {
    /// Opens an agent (its socket or memory port) and returns its id; the agent does nothing until told.
    func add(account: SIPAccount, transport: SIPTransportKind, seed: UInt64) -> Result<Int, SIPClientError>
    func agent(_ id: Int) -> SIPUserAgent?
    /// Runs `command` on agent `id` with the current time, then sends what it queued and reports its events.
    func perform(_ id: Int, _ command: (SIPUserAgent, UInt64) -> Void)
    /// Every agent's books, closed agents included.
    var counters: SIPCounters { get }
    /// Datagrams or stream writes the transport refused.
    var sendErrors: Int { get }
    /// The port agent `id` listens on (what its Contact names).
    func localPort(_ id: Int) -> Int?
    /// Closes agent `id`'s socket: nothing reaches it any more; its books stay in `counters`.
    func close(_ id: Int)
    /// Closes agent `id`'s socket as `close` does, but keeps the agent's objects for `reopen` (a sleeping device:
    /// its next wake needs the same agent on a new socket). Default: `close`.
    func park(_ id: Int)
    /// Parked agent `id` on a new socket under a new id, as `add` of its account, transport and `seed` would open it
    /// (the same identifiers, a fresh registration); nil when the pool holds no such agent (then `add`).
    func reopen(_ id: Int, seed: UInt64) -> Result<Int, SIPClientError>?
    func closeAll()
    /// Decides the fate of every UDP datagram before it is sent or read (a run's chaos); nil passes all.
    var datagramFilter: SIPDatagramFilter? { get set }
    /// `device.sockets: shared`: UDP agents added from now on share one socket (`SIPClientPool+Shared`). Default:
    /// a pool without sockets ignores it.
    var socketsShared: Bool { get set }
    /// `device.coalesce`: the shared socket's wait after a read that carried little, in ns (0: off;
    /// `SharedReadWindow`). Default: a pool without sockets ignores it.
    var sharedCoalesceNanos: UInt64 { get set }
    /// While events are reported: when what caused them happened, if not now (a shared-socket datagram's kernel
    /// receive time, so the owner measures from it, not from when the pool got round to reading it); else nil.
    var eventTime: UInt64? { get }
}

extension SIPAgentPool {
    public var socketsShared: Bool {
        get { false }
        set {}
    }

    public var eventTime: UInt64? { nil }

    public var sharedCoalesceNanos: UInt64 {
        get { 0 }
        set {}
    }

    public func park(_ id: Int) { close(id) }
    public func reopen(_ id: Int, seed: UInt64) -> Result<Int, SIPClientError>? { nil }
}

extension SIPClientPool: SIPAgentPool {}
