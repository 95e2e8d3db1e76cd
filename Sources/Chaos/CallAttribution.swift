/// Who a call that did not complete is put down to: the faults logged against it, or the target. A call is
/// excused only by a fault that names it (a faults.csv row with its planned call: its push dropped, a SIP message
/// of its devices lost, its callee's wake late, …); a fault elsewhere in the run, or a window merely open while it
/// ran, excuses nothing. So a server that loses calls during a chaos run is still caught.
public enum CallAttribution: Sendable, Equatable {
    /// No injected fault touched the call: it counts against the target.
    case target
    /// The kinds of the faults that touched it, sorted.
    case faults([String])

    /// The attribution of planned call `call` from what `log` holds.
    public static func of(call: Int, in log: FaultLog) -> CallAttribution {
        let kinds = log.kinds(ofCall: call)
        return kinds.isEmpty ? .target : .faults(kinds)
    }
}
