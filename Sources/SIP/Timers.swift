/// RFC 3261's timer values (§17.1.1.1, table 4) and whether the transport is reliable (TCP), which zeroes the
/// wait-for-retransmissions timers D, I, J, K and turns off A, E, G.
public struct SIPTimerValues: Sendable, Equatable {
    /// RTT estimate, 500 ms by default.
    public var t1: UInt64 = 500_000_000
    /// Longest retransmit interval for non-INVITE requests and INVITE responses, 4 s.
    public var t2: UInt64 = 4_000_000_000
    /// Longest time a message stays in the network, 5 s.
    public var t4: UInt64 = 5_000_000_000
    public var reliable: Bool

    public init(reliable: Bool) { self.reliable = reliable }
}

/// The transaction timers by their RFC 3261 letters; L and M are RFC 6026's for the 2xx of an INVITE.
public enum SIPTimer: String, Sendable, CaseIterable {
    case a, b, d, e, f, g, h, i, j, k, l, m
}

/// What a transaction asks of its owner, in order.
public enum TransactionEffect: Sendable, Equatable {
    /// Hand this message to the transport; `retransmission` when it repeats one already sent (counted apart).
    case send(SIPMessage, retransmission: Bool)
    /// A response (client side) or an ACK to a 2xx (server side) for the transaction user.
    case deliver(SIPMessage)
    /// Timer B, F, H or L ran out: the transaction user treats it as a 408 / a lost ACK.
    case timedOut(SIPTimer)
    /// The transaction is over; the owner forgets it.
    case terminated
}

/// The pending timers of one transaction: at most two at once (A and B, E and F, G and L or H), kept inline in
/// four slots. As an array it was a heap object per transaction, allocated with its first timer, checked for
/// uniqueness at each change and reached through a pointer each time the pool asked the agent for its next
/// deadline (after every datagram, for every transaction: `ClientTransaction.nextDeadline` was 0.85 % of a
/// perf profile at 800 calls/s, mostly that pointer's cache miss; issue 33).
struct PendingTimers: Sendable, Equatable {
    private typealias Slot = (timer: SIPTimer, at: UInt64)
    private var s0: Slot = (.a, 0), s1: Slot = (.a, 0), s2: Slot = (.a, 0), s3: Slot = (.a, 0)
    private var count = 0

    static func == (a: PendingTimers, b: PendingTimers) -> Bool {
        guard a.count == b.count else { return false }
        for i in 0..<a.count where a[i].timer != b[i].timer || a[i].at != b[i].at { return false }
        return true
    }

    private subscript(i: Int) -> Slot {
        get {
            switch i {
            case 0: return s0
            case 1: return s1
            case 2: return s2
            default: return s3
            }
        }
        set {
            switch i {
            case 0: s0 = newValue
            case 1: s1 = newValue
            case 2: s2 = newValue
            default: s3 = newValue
            }
        }
    }

    /// Sets `timer` to fire at `deadline`, after the others in order (a timer set again moves to the end).
    mutating func set(_ timer: SIPTimer, at deadline: UInt64) {
        cancel(timer)
        precondition(count < 4, "a transaction runs at most two timers at once")
        self[count] = (timer, deadline)
        count += 1
    }

    mutating func cancel(_ timer: SIPTimer) {
        var i = 0
        while i < count, self[i].timer != timer { i += 1 }
        guard i < count else { return }
        remove(at: i)
    }

    private mutating func remove(at index: Int) {
        var i = index
        while i + 1 < count {
            self[i] = self[i + 1]
            i += 1
        }
        count -= 1
    }

    mutating func cancelAll() { count = 0 }

    var next: UInt64? {
        guard count > 0 else { return nil }
        var next = s0.at
        if count > 1, s1.at < next { next = s1.at }
        if count > 2, s2.at < next { next = s2.at }
        if count > 3, s3.at < next { next = s3.at }
        return next
    }

    /// Removes and returns the earliest timer due at `now` (the first set among equals).
    mutating func popDue(_ now: UInt64) -> SIPTimer? {
        var earliest = -1
        for i in 0..<count where self[i].at <= now && (earliest < 0 || self[i].at < self[earliest].at) {
            earliest = i
        }
        guard earliest >= 0 else { return nil }
        let timer = self[earliest].timer
        remove(at: earliest)
        return timer
    }
}
