/// A datagram's arrival on the pool's clock from the kernel's receive time stamp (SO_TIMESTAMPNS), so that the time
/// a datagram waited in the socket (a coalescing window, `SharedReadWindow`, or a busy loop) is not counted in the
/// response times measured from it. The stamp is CLOCK_REALTIME and the pool measures on CLOCK_MONOTONIC: the
/// datagram's age (the real-time clock read beside the monotonic one, minus the stamp) is taken off the read's
/// monotonic time, so a step of the real-time clock between the two reads, not the offset between the clocks,
/// is the only error.
enum ReceiveStamp {
    /// Ages above this are not believed (the real-time clock stepped): the read's time is used instead. 10 s, far
    /// above any window (at most 10 ms) or a late loop's turn, so a loaded machine's datagram keeps its time (the
    /// suite once saw a 1 s test window read 1.08 s late, with a 1 s bound here, fall back to the read's time).
    static let maxAgeNanos: UInt64 = 10_000_000_000

    /// When the datagram stamped `stamp` (real-time ns, 0: none) arrived, on the clock that read `now` right after
    /// the real-time clock read `realNow` (in that order: the time between the reads then errs late, never early);
    /// `now` itself when the stamp is missing, later than `realNow` or implausibly old, and never before `floor` (a
    /// time the pool already handed out before the read, so nothing measured from it comes out negative).
    static func arrival(stamp: UInt64, realNow: UInt64, now: UInt64, floor: UInt64) -> UInt64 {
        guard stamp != 0, stamp <= realNow else { return now }
        let age = realNow - stamp
        guard age <= maxAgeNanos, age < now else { return now }
        return max(now - age, min(floor, now))
    }
}
