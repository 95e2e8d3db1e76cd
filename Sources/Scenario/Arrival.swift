/// One planned call: when it starts and every random choice it needs, decided before the run.
///
/// Deciding everything up front from the seed means a replay, a different worker count, or another shard gives
/// this call the same flow and the same think times.
public struct Arrival: Sendable, Equatable {
    /// Position in the plan, from 0; also the random stream the call's choices were drawn from.
    public var index: Int
    /// Intended start, in nanoseconds since the run started; latencies are measured from here (wrk2's rule).
    public var plannedNanos: UInt64
    /// Index into `Scenario.mix`.
    public var flow: Int
    /// Sampled `behavior.answer_after`.
    public var answerAfterNanos: UInt64
    /// Sampled `behavior.talk`.
    public var talkNanos: UInt64
    /// Whether the caller (rather than the callee) ends the call.
    public var callerHangsUp: Bool

    public init(
        index: Int, plannedNanos: UInt64, flow: Int, answerAfterNanos: UInt64, talkNanos: UInt64,
        callerHangsUp: Bool
    ) {
        self.index = index
        self.plannedNanos = plannedNanos
        self.flow = flow
        self.answerAfterNanos = answerAfterNanos
        self.talkNanos = talkNanos
        self.callerHangsUp = callerHangsUp
    }
}
