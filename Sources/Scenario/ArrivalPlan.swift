#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Determinism

/// The deterministic schedule of a run: every call's planned start time, flow and think times.
///
/// It is computed from the scenario alone (no clock), lazily, in time order: a one-hour run at 1,000 calls/s
/// yields its 3.6 million arrivals one at a time. Times invert the expected count N(t) of the piecewise-linear
/// rate: uniform puts the k-th call where N(t) = k; poisson puts it where N(t) equals the k-th point of a
/// unit-rate Poisson process, which is how a non-homogeneous Poisson process is simulated exactly.
///
/// To shard a plan, keep the arrivals whose `index` falls to the shard: each arrival's choices depend only on
/// the seed and its index, never on who runs it.
public struct ArrivalPlan: Sequence, Sendable {
    public let scenario: Scenario
    let profile: RateProfile
    private let weights: [Double]

    /// The stream the Poisson inter-arrival draws come from; arrivals use streams 0, 1, 2, … by index, which
    /// can never reach this one.
    static let poissonStream = UInt64.max

    public init(scenario: Scenario) {
        self.scenario = scenario
        self.profile = RateProfile(stages: scenario.load, totalNanos: scenario.totalNanos)
        // Flows an outside party starts are never planned: their calls arrive (`OutsideParty`).
        self.weights = scenario.mix.map {
            $0.weight.isFinite && $0.weight > 0 && scenario.flow(named: $0.flow)?.startsOutside != true ? $0.weight : 0
        }
    }

    /// Length of the arrival window in nanoseconds: `duration` when set, otherwise the stages' total.
    public var totalNanos: UInt64 { profile.totalNanos }

    /// Expected number of arrivals planned in [from, to] (nanoseconds since the run start).
    public func plannedCount(from: UInt64, to: UInt64) -> Double {
        guard to > from else { return 0 }
        if scenario.replay != nil { return from == 0 ? 1 : 0 }
        return Swift.max(0, profile.count(at: to) - profile.count(at: from))
    }

    /// Expected number of arrivals over the whole window.
    public var plannedTotal: Double { scenario.replay == nil ? profile.totalCount : 1 }

    /// Highest planned rate, per second.
    public var peakRate: Double { profile.peakRate }

    public func makeIterator() -> Iterator {
        Iterator(plan: self)
    }

    /// The arrival with this index at this time, with its flow and think times drawn from its own stream.
    func arrival(index: Int, at nanos: UInt64) -> Arrival {
        var random = SeededRandom(seed: scenario.seed, stream: UInt64(index))
        let flow = chooseFlow(using: &random)
        let behavior = scenario.behavior
        let answerAfter = behavior.answerAfter.sample(using: &random)
        let talk = behavior.talk.sample(using: &random)
        let callerHangsUp: Bool
        switch behavior.hangup {
        case .caller: callerHangsUp = true
        case .callee: callerHangsUp = false
        case .random: callerHangsUp = random.next() & 1 == 1
        }
        return Arrival(
            index: index, plannedNanos: nanos, flow: flow, answerAfterNanos: answerAfter, talkNanos: talk,
            callerHangsUp: callerHangsUp
        )
    }

    /// A weighted pick over `mix`; always consumes one value so the draws after it stay aligned.
    private func chooseFlow(using random: inout SeededRandom) -> Int {
        let total = weights.reduce(0, +)
        let point = random.nextUnit() * total
        var cumulative = 0.0
        for (index, weight) in weights.enumerated() where weight > 0 {
            cumulative += weight
            if point < cumulative { return index }
        }
        return weights.lastIndex { $0 > 0 } ?? 0
    }

    /// Walks the plan in time order, holding only a few numbers of state.
    public struct Iterator: IteratorProtocol, Sendable {
        private let plan: ArrivalPlan
        private var index = 0
        private var segmentHint = 0
        /// Current point of the unit-rate process (the k of N(t) = k for uniform arrivals).
        private var unitTime = 0.0
        private var poissonRandom: SeededRandom

        init(plan: ArrivalPlan) {
            self.plan = plan
            self.poissonRandom = SeededRandom(seed: plan.scenario.seed, stream: ArrivalPlan.poissonStream)
        }

        public mutating func next() -> Arrival? {
            if let replay = plan.scenario.replay {
                // One call, at once, drawn from the stream of its original index.
                guard index == 0 else { return nil }
                index = 1
                return plan.arrival(index: replay.call, at: 0)
            }
            switch plan.scenario.arrivals {
            case .uniform:
                unitTime = Double(index + 1)
            case .poisson:
                unitTime += -log(poissonRandom.nextOpenUnit())
            }
            guard let nanos = plan.profile.time(whereCountIs: unitTime, hint: &segmentHint) else { return nil }
            defer { index += 1 }
            return plan.arrival(index: index, at: nanos)
        }
    }
}
