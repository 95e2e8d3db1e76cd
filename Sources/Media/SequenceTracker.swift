/// Extended sequence numbers, loss and duplicates of one RTP source, after RFC 3550 Appendix A.1 and A.3:
/// a 16-bit sequence extended by a count of wraps, packets counted once each, expected = highest extended
/// sequence − first + 1, lost = expected − received.
///
/// Departures from A.1, each on purpose: there is no probation (the first packet starts the books: callstorm's
/// own streams need no guarding against a stray source, and a SIP answer already named the peer); a duplicate of
/// one of the last 64 sequences is told apart (a bit window) and counted apart instead of as received, so lost
/// stays ≥ 0 unless a duplicate older than the window arrives; a late packet from before the first one lowers the
/// base, so it is expected as well as received.
public struct SequenceTracker: Sendable, Equatable {
    /// A.1's MAX_DROPOUT: a forward step smaller than this is a gap (loss), larger is a jump.
    public static let maxDropout: UInt16 = 3_000
    /// A.1's MAX_MISORDER: a step back of fewer than this many is a late packet, more is a jump.
    public static let maxMisorder: UInt16 = 100

    /// What one packet did to the books.
    public enum Verdict: Sendable, Equatable {
        /// The first packet, or one above the highest so far (possibly after a gap).
        case inOrder
        /// Below the highest so far, not seen before: reordered.
        case late
        /// Seen before.
        case duplicate
        /// A jump too far to be a gap or reordering; not counted until the next packet follows it (A.1's
        /// `bad_seq`), which restarts the books from there.
        case jumpPending
        /// The packet after a jump followed it: the source restarted its sequence (both packets counted).
        case restarted
    }

    public private(set) var received = 0
    public private(set) var duplicates = 0
    /// Packets that arrived after a higher sequence (counted in `received` too).
    public private(set) var late = 0
    /// Restarts accepted after a jump.
    public private(set) var restarts = 0
    /// The first packet's extended sequence (lowered by a late packet from before it).
    private var base = 0
    /// Highest extended sequence: wraps × 65536 + highest 16-bit sequence.
    private var highest = -1
    /// Bit k set: sequence `highest - k` was received.
    private var window: UInt64 = 0
    /// The sequence that would confirm a jump (A.1 `bad_seq`), if one is pending.
    private var pendingJump: UInt16?
    /// Expected before the last restart.
    private var expectedBefore = 0

    public init() {}

    /// The highest sequence with its wrap count, as an RR reports it (cycles in the high 16 bits).
    public var extendedHighest: UInt32 { highest < 0 ? 0 : UInt32(truncatingIfNeeded: highest) }
    public var expected: Int { highest < 0 ? 0 : expectedBefore + highest - base + 1 }
    /// Cumulative lost (A.3): expected − received; negative only after undetected duplicates.
    public var lost: Int { expected - received }

    /// Counts one packet with sequence `sequence`.
    public mutating func note(_ sequence: UInt16) -> Verdict {
        guard highest >= 0 else {
            base = Int(sequence)
            highest = Int(sequence)
            window = 1
            received = 1
            return .inOrder
        }
        let current = UInt16(truncatingIfNeeded: highest)
        let step = sequence &- current
        if step == 0 {
            duplicates += 1
            return .duplicate
        }
        if step < Self.maxDropout {
            advance(by: Int(step))
            received += 1
            pendingJump = nil
            return .inOrder
        }
        if step <= UInt16.max - Self.maxMisorder + 1 {
            return jump(sequence)
        }
        return behind(Int(UInt16.max - step) + 1)
    }

    private mutating func advance(by step: Int) {
        highest += step
        window = step >= 64 ? 1 : window << UInt64(step) | 1
    }

    /// A packet `back` sequences below the highest.
    private mutating func behind(_ back: Int) -> Verdict {
        if back < 64 {
            if window >> UInt64(back) & 1 == 1 {
                duplicates += 1
                return .duplicate
            }
            window |= 1 << UInt64(back)
        }
        received += 1
        late += 1
        base = min(base, highest - back)
        return .late
    }

    private mutating func jump(_ sequence: UInt16) -> Verdict {
        guard pendingJump == sequence else {
            pendingJump = sequence &+ 1
            return .jumpPending
        }
        // The source restarted at sequence - 1: close the old books' expectation, start new ones there.
        expectedBefore = expected
        restarts += 1
        pendingJump = nil
        // In extended numbers: a restart confirmed by sequence 0 began at 65535, one cycle below it.
        highest = sequence == 0 ? 65_536 : Int(sequence)
        base = highest - 1
        window = 0b11
        received += 2
        return .restarted
    }

    /// Expected and received at the last `takeInterval`, for the RR's fraction lost.
    public struct Interval: Sendable, Equatable {
        public var expected = 0
        public var received = 0

        public init(expected: Int = 0, received: Int = 0) {
            self.expected = expected
            self.received = received
        }
    }

    /// Loss since `prior` (A.3): the fraction lost as RTCP carries it (lost × 256 / expected, 0 when nothing was
    /// lost or duplicates outnumber losses), and the new mark.
    public func interval(since prior: Interval) -> (fractionLost: UInt8, mark: Interval) {
        let expectedNow = expected - prior.expected
        let lostNow = expectedNow - (received - prior.received)
        let fraction = expectedNow == 0 || lostNow <= 0 ? 0 : min(255, (lostNow << 8) / expectedNow)
        return (UInt8(fraction), Interval(expected: expected, received: received))
    }
}
