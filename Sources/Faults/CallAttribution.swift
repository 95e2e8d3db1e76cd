/// Who a call that did not complete is put down to: the injected faults on its path, or the target. On its path
/// means a fault logged against the call (its push dropped, a SIP datagram of its devices lost, its callee's wake
/// late, a join's media failed), one on one of its devices and on no call while it ran (a socket drop), or one
/// that spanned part of the run while it ran (a network window, the target killed until its restart, a socket
/// storm and its reconnects, one of its devices' SIP registration lapsed by a fault); the driver adds a device
/// offline by the schedule. A fault on another call or another device excuses nothing, nor does a SIP datagram
/// fault on a message of no call (a REGISTER refresh: `SIPRegistrationFaults`), so a server that loses calls
/// during a chaos run is still caught.
public enum CallAttribution: Sendable, Equatable {
    /// No injected fault touched the call: it counts against the target.
    case target
    /// The kinds of the faults that touched it, sorted.
    case faults([String])

    /// The attribution of planned call `call`, whose devices (indexes) were `devices`, which ran from `fromNanos`
    /// to `toNanos` since the load started, from what `log` holds and `extra` kinds the caller found.
    public static func of(call: Int, devices: [Int], fromNanos: UInt64, toNanos: UInt64, in log: FaultLog,
                          extra: [String] = []) -> CallAttribution {
        let kinds = Set(log.kinds(ofCall: call, devices: devices, fromNanos: fromNanos, toNanos: toNanos) + extra)
        return kinds.isEmpty ? .target : .faults(kinds.sorted())
    }
}
