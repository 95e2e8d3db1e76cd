/// A fault in the simulated app. Each acts at its own moment in a device's life (a push arriving, a join
/// being fulfilled, a request leaving, the device reading its clock), so each family member brings the
/// decision for its moment; `FaultSchedule`'s device extensions run them over the active windows.
public protocol DeviceFault: Fault {
    /// The stream its decisions are drawn from.
    static var stream: DrawStream { get }
}

/// What a join's media setup does under a fault.
public enum JoinDecision: Sendable, Equatable {
    /// The join action fails after the server accepted it.
    case fail
    /// The join is fulfilled this much later.
    case delay(nanos: UInt64)
}

/// A device fault on the media setup of a join the server accepted.
public protocol JoinFault: DeviceFault, OrderedFault {
    /// This fault's effect on the join that `draws` describe, with its note; nil when it does not hit.
    func decide(_ draws: FaultDraws) -> (JoinDecision, FaultNote)?
}

extension FaultSchedule {
    /// A media fault for join number `seq` of the device's part `subject` in the call planned at
    /// `plannedSinceLoad`: the first of the registry's join faults that hits, window by window.
    public func joinDecision(device: Int, subject: Int, seq: UInt64, plannedSinceLoad: UInt64, flow: String)
        -> (decision: JoinDecision, note: FaultNote)? {
        for (i, w) in active(forCallPlannedAt: plannedSinceLoad, device: device, flow: flow) {
            let draws = draws(i, device: device, subject: subject, seq: seq, plannedSinceLoad: plannedSinceLoad)
            for fault in FaultRegistry.joinFaults(of: w) {
                if let hit = fault.decide(draws) { return hit }
            }
        }
        return nil
    }
}
