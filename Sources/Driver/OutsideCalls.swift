import Determinism
import Scenario

/// The call ids outside calls get (`OutsideCalls.callID`), for readers of a run's files (repro files: callstorm did
/// not place such a call, so it cannot be replayed).
public enum OutsideCallIDs {
    static let bit = 1 << 42

    /// Whether `call` (a history's or actions.csv's call id) was an outside party's.
    public static func contains(_ call: Int) -> Bool { call & bit != 0 }
}

/// Calls placed by parties callstorm does not simulate (flows whose first role is `outside`): SIPp as a UAC, a
/// PSTN gateway, a server starting calls itself. Nothing plans them; one becomes a call of ours when it reaches an
/// idle, registered device of this worker (a VoIP push it reports, or a SIP INVITE) before the run's window closes
/// (`duration` after the load's start; a device registered before the others takes calls already). Its flow is
/// drawn by the mix's weights among the outside-started flows, and its behaviour samples from a seeded stream by its
/// number on this worker, so a run's choices repeat for the same order of arrivals. A value owned by the worker's
/// loop.
struct OutsideCalls {
    let worker: Int
    /// The outside-started flows: their index in `DriverSettings.flows` and their mix weight.
    let flows: [(index: Int, weight: Double)]
    /// When the window for calls closes (monotonic ns); 0 until the load starts.
    private(set) var closesAt: UInt64 = 0
    /// Calls drawn so far, taken or refused for want of idle devices (numbers their ids and random streams).
    private(set) var drawn = 0

    init(worker: Int, settings: DriverSettings) {
        self.worker = worker
        flows = settings.flows.enumerated().compactMap { index, flow in
            flow.startsOutside ? (index, max(0, settings.scenario.mix[index].weight)) : nil
        }
    }

    /// Whether this run's devices wait for outside calls at all.
    var expected: Bool { !flows.isEmpty }

    /// The load starts: the window closes after the arrival window's length.
    mutating func open(loadStart: UInt64, lengthNanos: UInt64) {
        closesAt = loadStart + lengthNanos
    }

    /// Whether a call arriving at `now` is taken, and whether the worker must stay up for calls still to come:
    /// the window has not closed.
    func isOpen(_ now: UInt64) -> Bool { expected && (closesAt == 0 || now < closesAt) }

    /// Call ids of outside calls: bit 42 (above planned arrivals and redials), then the worker, then a counter.
    static func callID(worker: Int, serial: Int) -> Int { OutsideCallIDs.bit | worker << 24 | serial }

    /// The arrival an outside call runs as: a flow drawn by weight and the behaviour samples, from the call's own
    /// seeded stream. The caller sets `plannedNanos` (the arrival instant: latencies from planned equal those from
    /// actual).
    mutating func arrival(seed: UInt64, behavior: Behavior) -> Arrival {
        let serial = drawn
        drawn += 1
        let id = Self.callID(worker: worker, serial: serial)
        var random = SeededRandom(seed: seed, stream: UInt64(id))
        let total = flows.reduce(0) { $0 + $1.weight }
        let point = random.nextUnit() * total
        var cumulative = 0.0
        var flow = flows.last?.index ?? 0
        for entry in flows where entry.weight > 0 {
            cumulative += entry.weight
            if point < cumulative {
                flow = entry.index
                break
            }
        }
        let answerAfter = behavior.answerAfter.sample(using: &random)
        let talk = behavior.talk.sample(using: &random)
        return Arrival(index: id, plannedNanos: 0, flow: flow, answerAfterNanos: answerAfter,
                       talkNanos: talk, callerHangsUp: false)
    }
}
