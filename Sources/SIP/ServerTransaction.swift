/// A server transaction (RFC 3261 §17.2) as a value. The owner creates it for a new request, passes the
/// transaction user's responses through `respond`, retransmitted requests (and the ACK) through `receive`, and
/// the time through `advance(to:)`. INVITE: §17.2.1 with RFC 6026's Accepted state, in which the 2xx is
/// retransmitted (T1 doubling to T2, §13.3.1.4) until its ACK arrives or Timer L (64·T1) runs out.
/// Non-INVITE: §17.2.2.
public struct ServerTransaction: Sendable {
    public enum State: Sendable, Equatable { case trying, proceeding, completed, confirmed, accepted, terminated }

    /// The request, until the transaction no longer reads it: a non-INVITE's from its final response on
    /// (Completed, 64·T1, which only answers retransmissions with `lastResponse`) and an INVITE's once Confirmed,
    /// an empty request of the same method (`SIPMessage.spent`). Kept whole, each call's BYE lingered 32 s after
    /// its answer (docs/SIP.md, 2026-12-07).
    public private(set) var request: SIPMessage
    public let timers: SIPTimerValues
    public private(set) var state: State
    /// The last response sent, which a retransmitted request gets again; nil once Confirmed.
    public private(set) var lastResponse: SIPMessage?
    private var pending = PendingTimers()
    private var interval: UInt64
    private let isInvite: Bool

    public init(request: SIPMessage, timers: SIPTimerValues) {
        self.request = request
        self.timers = timers
        interval = timers.t1
        isInvite = request.method == .invite
        state = isInvite ? .proceeding : .trying
    }

    public var branch: String? { request.branch }
    public var nextDeadline: UInt64? { pending.next }

    /// Sends the transaction user's response.
    public mutating func respond(_ response: SIPMessage, now: UInt64) -> [TransactionEffect] {
        guard let status = response.status, state == .trying || state == .proceeding else { return [] }
        lastResponse = response
        switch status {
        case 100...199:
            state = .proceeding
        case 200...299 where isInvite:
            state = .accepted
            interval = timers.t1
            pending.set(.g, at: now + interval)
            pending.set(.l, at: now + 64 * timers.t1)
        case 300... where isInvite:
            state = .completed
            if !timers.reliable { pending.set(.g, at: now + timers.t1) }
            pending.set(.h, at: now + 64 * timers.t1)
        default:
            state = .completed
            pending.set(.j, at: now + (timers.reliable ? 0 : 64 * timers.t1))
            request = .spent(request.method)
        }
        return [.send(response, retransmission: false)]
    }

    /// A request matching this transaction: a retransmission of its request, or the ACK of an INVITE.
    public mutating func receive(_ message: SIPMessage, now: UInt64) -> [TransactionEffect] {
        if message.method == .ack {
            guard isInvite else { return [] }
            switch state {
            case .completed:
                state = .confirmed
                pending.cancelAll()
                pending.set(.i, at: now + (timers.reliable ? 0 : timers.t4))
                request = .spent(.invite)
                lastResponse = nil
                return []
            case .accepted:
                state = .terminated
                pending.cancelAll()
                return [.deliver(message), .terminated]
            default:
                return []
            }
        }
        switch state {
        case .proceeding, .completed:
            return lastResponse.map { [.send($0, retransmission: true)] } ?? []
        default:
            return []
        }
    }

    /// Fires every timer due at `now`, in deadline order.
    public mutating func advance(to now: UInt64) -> [TransactionEffect] {
        var effects: [TransactionEffect] = []
        while state != .terminated, let timer = pending.popDue(now) {
            switch timer {
            case .g:
                if let lastResponse { effects.append(.send(lastResponse, retransmission: true)) }
                interval = min(interval * 2, timers.t2)
                pending.set(.g, at: now + interval)
            case .h, .l:
                state = .terminated
                pending.cancelAll()
                effects += [.timedOut(timer), .terminated]
            default:
                state = .terminated
                pending.cancelAll()
                effects.append(.terminated)
            }
        }
        return effects
    }
}
