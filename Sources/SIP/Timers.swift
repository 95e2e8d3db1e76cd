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

/// The pending timers of one transaction: at most three, so a small array beats any heap.
struct PendingTimers: Sendable, Equatable {
    private(set) var items: [(SIPTimer, UInt64)] = []

    static func == (a: PendingTimers, b: PendingTimers) -> Bool {
        a.items.map(\.0) == b.items.map(\.0) && a.items.map(\.1) == b.items.map(\.1)
    }

    /// Room for the most timers one transaction runs at once, reserved with the first (the list grew, and was
    /// reallocated, several times per transaction: ~16,000 instructions per call in `sip-bench calls`).
    mutating func set(_ timer: SIPTimer, at deadline: UInt64) {
        cancel(timer)
        if items.capacity == 0 { items.reserveCapacity(4) }
        items.append((timer, deadline))
    }

    mutating func cancel(_ timer: SIPTimer) {
        if let i = items.firstIndex(where: { $0.0 == timer }) { items.remove(at: i) }
    }

    mutating func cancelAll() { items.removeAll(keepingCapacity: true) }

    var next: UInt64? {
        guard !items.isEmpty else { return nil }
        var next = items[0].1
        for i in 1..<items.count where items[i].1 < next { next = items[i].1 }
        return next
    }

    /// Removes and returns the earliest timer due at `now`.
    mutating func popDue(_ now: UInt64) -> SIPTimer? {
        var earliest: Int?
        for i in items.indices where items[i].1 <= now && earliest.map({ items[i].1 < items[$0].1 }) ?? true {
            earliest = i
        }
        guard let earliest else { return nil }
        return items.remove(at: earliest).0
    }
}
