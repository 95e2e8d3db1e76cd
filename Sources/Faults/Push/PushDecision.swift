/// What the push-path faults decided for one push: the driver's push sink only applies it.
public struct PushDecision: Sendable, Equatable {
    public enum Fate: Sendable, Equatable {
        /// Accepted and handed to the device (after `delayNanos`, `copies` times, held `holdNanos`).
        case deliver
        /// Answered with this APNs status instead of being accepted.
        case reject(status: Int)
        /// Accepted with 200 and never delivered (an APNs drop, or an offline phone).
        case drop
    }

    public var fate: Fate = .deliver
    public var delayNanos: UInt64 = 0
    public var copies = 1
    /// Held back until the device's next push overtakes it, or this long (a reorder).
    public var holdNanos: UInt64 = 0
    /// After this push's answer the gateway sends GOAWAY on its connection.
    public var goAway = false
    /// The faults that acted, in the order they decided.
    public var notes: [FaultNote] = []

    public init() {}

    /// The push's fate is sealed: no later fault looks at it.
    public var isFinal: Bool { fate != .deliver }
}

/// A fault that decides on each push the gateway accepts for a device in a call.
public protocol PushPathFault: OrderedFault {
    /// The stream its decisions are drawn from.
    static var stream: DrawStream { get }
    /// Adds this fault's effect on the push that `draws` describe to `decision` (which is not final yet).
    func apply(to decision: inout PushDecision, draws: FaultDraws)
}

extension FaultSchedule {
    /// The push-path faults of the windows that hold the call planned at `plannedSinceLoad`, for push number
    /// `seq` of the device's part `subject` in it: decided in the registry's order, window by window, until one
    /// seals the push's fate. Pure: the same arguments give the same decision, run after run.
    public func pushDecision(device: Int, subject: Int, seq: UInt64, plannedSinceLoad: UInt64, flow: String)
        -> PushDecision {
        var decision = PushDecision()
        for (i, _) in active(forCallPlannedAt: plannedSinceLoad, device: device, flow: flow) {
            let draws = draws(i, device: device, subject: subject, seq: seq, plannedSinceLoad: plannedSinceLoad)
            for fault in pushPath[i] {
                fault.apply(to: &decision, draws: draws)
                if decision.isFinal { return decision }
            }
        }
        return decision
    }
}
