import Determinism

/// What a device on a connection (tcp, tls, ws, wss) does when its connection to the proxy breaks or a connect
/// is refused: RFC 5626's flow recovery (§4.4–4.5) as a phone does it, without the outbound extension's several
/// registered flows. `none`: it reconnects and waits for its next REGISTER refresh (the proxy cannot reach it until
/// then). `fixed`, `exponential`: it reconnects and sends a REGISTER at once on the new connection (a fresh binding
/// whose contact is the new connection); while the proxy refuses or resets it, it tries again after a back-off.
public struct SIPReconnectPolicy: Sendable, Equatable {
    public enum Backoff: String, Sendable, Equatable, CaseIterable {
        case none, fixed, exponential
    }

    public var backoff: Backoff
    /// RFC 5626's base-time (its default is 30 s): `fixed` waits this long times the jitter, `exponential` starts
    /// at it.
    public var baseNanos: UInt64
    /// RFC 5626's max-time (its default is 1,800 s): `exponential` never waits longer (before the jitter).
    public var maxNanos: UInt64

    public init(backoff: Backoff, baseNanos: UInt64 = 1_000_000_000, maxNanos: UInt64 = 30_000_000_000) {
        self.backoff = backoff
        self.baseNanos = baseNanos
        self.maxNanos = maxNanos
    }

    public static let none = SIPReconnectPolicy(backoff: .none)

    /// Whether the device re-registers as soon as its new connection is open.
    public var recovers: Bool { backoff != .none }

    /// The wait before the next attempt after `failures` (≥ 1) consecutive failed ones, `unit` a draw in [0, 1):
    /// RFC 5626 §4.5's `min(max-time, base-time × 2^consecutive-failures)` times a random factor in [50 %, 100 %],
    /// consecutive-failures counting the failures before the last (the first retry waits base-time × the factor),
    /// so a proxy's many devices do not come back in step. `fixed`: base-time × the factor every time.
    public func wait(afterFailures failures: Int, unit: Double) -> UInt64 {
        let factor = 0.5 + 0.5 * min(max(unit, 0), 1)
        var ceiling = Double(baseNanos)
        if backoff == .exponential {
            let doublings = min(max(failures - 1, 0), 62)
            ceiling = min(Double(maxNanos), ceiling * Double(sign: .plus, exponent: doublings, significand: 1))
        }
        return UInt64(ceiling * factor)
    }
}

/// One agent's flow recovery (`SIPReconnectPolicy`): when its connection was lost, how many attempts failed
/// since, and when the next one goes. The jitter is drawn from the agent's own seeded stream, so a replay with
/// the same seed waits the same.
struct FlowRecovery {
    var policy = SIPReconnectPolicy.none
    private var random: SeededRandom
    /// When the connection broke (the recovery's start); nil while the flow is up or no recovery runs.
    private(set) var lostAt: UInt64?
    /// Consecutive failed attempts since `lostAt`.
    private(set) var failures = 0
    /// When the next attempt goes (a new connection, or a REGISTER on the one there is); nil: none waits.
    var retryAt: UInt64?

    init(seed: UInt64) { random = SeededRandom(seed: seed, stream: 0x5626) }

    /// The connection broke at `now`: a recovery starts unless one is under way. Returns whether it started.
    mutating func lost(now: UInt64) -> Bool {
        guard lostAt == nil else { return false }
        lostAt = now
        failures = 0
        return true
    }

    /// An attempt failed at `now` (a connect refused or reset, a REGISTER refused): the next waits the back-off.
    mutating func failed(now: UInt64) {
        failures += 1
        retryAt = now + policy.wait(afterFailures: failures, unit: random.nextUnit())
    }

    /// The re-REGISTER was answered 200: the recovery is over; returns how long it took.
    mutating func recovered(now: UInt64) -> UInt64? {
        defer {
            lostAt = nil
            failures = 0
            retryAt = nil
        }
        return lostAt.map { now &- $0 }
    }
}
