/// Flow recovery (RFC 5626 §4.4–4.5, `SIPReconnectPolicy`): the agent's side. The pool owns the connections: it
/// tells the agent when one broke (`connectionLost`) or a new one could not be opened (`connectFailed`), opens a
/// new one when `flowRetryDue` says so, and then has the agent `reregister` on it.
extension SIPUserAgent {
    /// What it does when its connection to the proxy breaks; `none` (the default) waits for the next refresh.
    public var reconnect: SIPReconnectPolicy {
        get { flow.policy }
        set { flow.policy = newValue }
    }

    /// Whether a recovery is under way (the connection lost and no re-REGISTER answered 200 yet).
    public var recovering: Bool { flow.lostAt != nil }

    /// Its connection broke at `now`. A connection lost while recovering (refused, reset before the 200) is a
    /// failed attempt: the next waits the back-off (`flowRetryDue`). Returns whether to reconnect at once (the
    /// first loss of a registered flow).
    public func connectionLost(now: UInt64) -> Bool {
        guard flow.policy.recovers else { return true }
        if flow.lost(now: now) {
            mail.events.append(.flow(.lost))
            return true
        }
        flow.failed(now: now)
        return false
    }

    /// A new connection could not even be opened (no socket, a synchronous refusal): the next try waits.
    func connectFailed(now: UInt64) {
        flow.failed(now: now)
    }

    /// Whether the back-off before the next attempt is over at `now`; the attempt is then the caller's to make.
    public func flowRetryDue(_ now: UInt64) -> Bool {
        guard let at = flow.retryAt, at <= now else { return false }
        flow.retryAt = nil
        return true
    }

    /// A new connection is open (its REGISTER queued until it can carry it): told, and the REGISTER sent, a fresh
    /// binding whose Contact names the new connection.
    public func reregister(now: UInt64, reconnected: Bool) {
        if reconnected { mail.events.append(.flow(.reconnected)) }
        register(now: now)
    }

    /// What the registration said while recovering, told by the pool as it passes the agent's events on: a 200
    /// ends the recovery, a failure waits the back-off. Returns the recovery's own event for it, if any.
    public func recoveryHeard(_ event: SIPEvent, now: UInt64) -> SIPFlowEvent? {
        guard recovering else { return nil }
        switch event {
        case .registered:
            return flow.recovered(now: now).map { .reregistered(afterNanos: $0) }
        case .registrationFailed(let status):
            flow.failed(now: now)
            return .reregisterFailed(status: status)
        default: return nil
        }
    }
}
