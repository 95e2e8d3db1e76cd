import Foundation
import Metrics
import Scenario

/// The arrivals of the plan this worker owns, one at a time (open model: a call starts at its planned time
/// whatever earlier calls are doing).
struct ArrivalFeed {
    let worker: Int
    private var iterator: ArrivalPlan.Iterator
    private(set) var done = false
    /// An arrival sits in the wheel waiting for its planned time.
    var pending = false
    /// The plan's zero (monotonic ns); 0 until the load starts.
    var loadStart: UInt64 = 0
    /// Runs once arrivals are over and no call is left.
    var onDrained: (@Sendable () -> Void)?
    /// Redials after drops scheduled and not yet started (the worker is not drained while any is due), and
    /// how many were ever scheduled (numbers their call ids).
    var redialsPending = 0
    var redialsPlanned = 0
    /// What every call of this worker is started with.
    let config: FlowConfig

    init(worker: Int, plan: ArrivalPlan, config: FlowConfig) {
        self.worker = worker
        self.iterator = plan.makeIterator()
        self.config = config
    }

    /// The next arrival this worker owns; nil (and `done`) when the plan has no more.
    mutating func next(_ settings: DriverSettings) -> Arrival? {
        guard !done else { return nil }
        while let arrival = iterator.next() {
            guard settings.owns(arrival: arrival.index, worker: worker) else { continue }
            pending = true
            return arrival
        }
        done = true
        return nil
    }

    /// Ends the feed; returns how many arrivals it still had (the one waiting in the wheel included).
    mutating func abandon(_ settings: DriverSettings) -> Int64 {
        guard !done else { return 0 }
        var abandoned: Int64 = pending ? 1 : 0
        while let arrival = iterator.next() {
            if settings.owns(arrival: arrival.index, worker: worker) { abandoned += 1 }
        }
        pending = false
        done = true
        return abandoned
    }
}
