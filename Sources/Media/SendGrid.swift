/// The grid a transport puts its streams' sends on, so one timer wake serves every stream due in a tick: each
/// stream's first send (and so, with `SendSchedule`'s fixed interval, every later one) is moved up to the next
/// multiple of `tickNanos`, never earlier than asked and less than one tick later. With 400 streams at 20 ms and
/// a 1 ms grid, a loop wakes at most 1,000 times a second to send (20 streams a wake) instead of 20,000.
///
/// The lag of each send is still measured against its plan on the grid (`SendSchedule`), so a loop late for a
/// tick shows all of its lateness.
public struct SendGrid: Sendable, Equatable {
    public let tickNanos: UInt64

    /// - Parameter tickNanos: the grid's step (1 ns: every instant is on it, nothing moves).
    public init(tickNanos: UInt64) {
        self.tickNanos = max(1, tickNanos)
    }

    /// `nanos` moved up to the grid.
    public func onGrid(_ nanos: UInt64) -> UInt64 {
        let rest = nanos % tickNanos
        return rest == 0 ? nanos : nanos &+ (tickNanos - rest)
    }

    /// The delay from `now` that puts a stream asked to send `sendAfterNanos` from `now` on the grid.
    public func sendAfter(now: UInt64, asked sendAfterNanos: UInt64) -> UInt64 {
        onGrid(now &+ sendAfterNanos) - now
    }
}
