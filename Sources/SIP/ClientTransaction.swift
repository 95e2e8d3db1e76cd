/// A client transaction (RFC 3261 §17.1) as a value: the owner feeds it responses and the time, and carries out
/// the effects it returns (send, deliver, timed out, terminated). INVITE transactions follow §17.1.1 with
/// RFC 6026's Accepted state (2xx retransmissions reach the transaction user, which re-sends its ACK); non-INVITE
/// ones follow §17.1.2. Timers are absolute deadlines on the owner's `Clock`: call `advance(to:)` at
/// `nextDeadline` or later.
public struct ClientTransaction: Sendable {
    public enum State: Sendable, Equatable { case calling, trying, proceeding, completed, accepted, terminated }

    /// The request, until the transaction no longer reads it: from an INVITE's 2xx (Accepted, 64·T1) and a
    /// non-INVITE's final response (Completed, T4) on, an empty request of the same method (`SIPMessage.spent`);
    /// only a non-2xx INVITE keeps it, for the ACKs of the response's retransmissions. Kept whole, each call's three
    /// INVITEs lingered 32 s after their answers, the bulk of a SIP run's memory per call at rate (docs/SIP.md,
    /// 2026-12-07).
    public private(set) var request: SIPMessage
    public let timers: SIPTimerValues
    public private(set) var state: State
    private var pending = PendingTimers()
    private var interval: UInt64
    private let isInvite: Bool

    /// Creates the transaction and returns it with the effects of sending `request` at `now`.
    public static func start(_ request: SIPMessage, timers: SIPTimerValues, now: UInt64)
        -> (ClientTransaction, [TransactionEffect]) {
        var transaction = ClientTransaction(request: request, timers: timers)
        transaction.arm(now: now)
        return (transaction, [.send(request, retransmission: false)])
    }

    private init(request: SIPMessage, timers: SIPTimerValues) {
        self.request = request
        self.timers = timers
        interval = timers.t1
        isInvite = request.method == .invite
        state = isInvite ? .calling : .trying
    }

    private mutating func arm(now: UInt64) {
        if !timers.reliable { pending.set(isInvite ? .a : .e, at: now + timers.t1) }
        pending.set(isInvite ? .b : .f, at: now + 64 * timers.t1)
    }

    /// The branch and method that match responses to this transaction (§17.1.3).
    public var branch: String? { request.branch }

    public var nextDeadline: UInt64? { pending.next }

    /// A response whose top Via branch and CSeq method match this transaction.
    public mutating func receive(_ response: SIPMessage, now: UInt64) -> [TransactionEffect] {
        guard let status = response.status else { return [] }
        return isInvite ? receiveInvite(response, status: status, now: now)
            : receiveNonInvite(response, status: status, now: now)
    }

    private mutating func receiveInvite(_ response: SIPMessage, status: Int, now: UInt64) -> [TransactionEffect] {
        switch (state, status) {
        case (.calling, 100...199), (.proceeding, 100...199):
            state = .proceeding
            pending.cancel(.a)
            pending.cancel(.b)
            return [.deliver(response)]
        case (.calling, 200...299), (.proceeding, 200...299):
            state = .accepted
            pending.cancelAll()
            pending.set(.m, at: now + 64 * timers.t1)
            request = .spent(.invite)
            return [.deliver(response)]
        case (.accepted, 200...299):
            return [.deliver(response)]
        case (.calling, 300...), (.proceeding, 300...):
            state = .completed
            pending.cancelAll()
            pending.set(.d, at: now + (timers.reliable ? 0 : max(32_000_000_000, 64 * timers.t1)))
            return [.send(ack(for: response), retransmission: false), .deliver(response)]
        case (.completed, 300...):
            return [.send(ack(for: response), retransmission: true)]
        case (.completed, 200...299):
            // A 2xx after the final non-2xx: a proxy forwards every 2xx (RFC 6026 §8.1), one that crossed a
            // CANCEL after the proxy's own 487 too. The transaction user ACKs it (§13.2.2.4) and ends it.
            return [.deliver(response)]
        default:
            return []
        }
    }

    private mutating func receiveNonInvite(_ response: SIPMessage, status: Int, now: UInt64) -> [TransactionEffect] {
        switch (state, status) {
        case (.trying, 100...199), (.proceeding, 100...199):
            state = .proceeding
            return [.deliver(response)]
        case (.trying, 200...), (.proceeding, 200...):
            state = .completed
            pending.cancelAll()
            pending.set(.k, at: now + (timers.reliable ? 0 : timers.t4))
            request = .spent(request.method)
            return [.deliver(response)]
        default:
            return []
        }
    }

    /// Fires every timer due at `now`, in deadline order.
    public mutating func advance(to now: UInt64) -> [TransactionEffect] {
        var effects: [TransactionEffect] = []
        while state != .terminated, let timer = pending.popDue(now) {
            switch timer {
            case .a, .e:
                effects.append(.send(request, retransmission: true))
                interval = timer == .a ? interval * 2 : min(interval * 2, timers.t2)
                if state == .proceeding { interval = timers.t2 }
                pending.set(timer, at: now + interval)
            case .b, .f:
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

    /// The ACK for a non-2xx final response (§17.1.1.3): same Request-URI, top Via, Call-ID, From, CSeq number
    /// and Route as the INVITE; To from the response (with its tag).
    func ack(for response: SIPMessage) -> SIPMessage {
        var ack = SIPMessage.request(.ack, uri: request.requestURI ?? "")
        if let via = request.header(.via) { ack.addHeader(.via, String(SIPHeaderValues.first(via).trimmingSpaces)) }
        ack.addHeader(.maxForwards, "70")
        ack.copyHeader(.from, from: request)
        ack.copyHeader(.to, from: response)
        if let callID = request.callID { ack.addHeader(.callID, callID) }
        ack.addHeader(.cseq, SIPCSeq(request.cseq?.number ?? 0, .ack).text)
        ack.copyHeaders(.route, from: request)
        return ack
    }
}

