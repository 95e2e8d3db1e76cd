import PushModel
import Scenario

/// What the worker's timer wheel holds: small values, no closures, so a scheduled step allocates nothing.
enum TimerEvent {
    case arrival(Arrival)
    /// A caller redials a dropped call (`behavior.redial_after_drop`).
    case redial(RedialDue)
    /// A timer one call's interpreter armed.
    case flow(call: Int, FlowTimer)
    /// A push reaches its device later (a push delay fault), or is processed later (a slow app).
    case deliver(push: APNsPush, local: Int)
    case report(push: APNsPush, local: Int)
    /// A push a reorder fault held back is delivered now if no later push released it first.
    case releaseHeld(local: Int, serial: UInt64)
    case tick
    /// A device socket's linger or reconnect timer.
    case socket(SocketTimer)
    /// An action sent over a socket got no reply within `action_timeout` (its request id).
    case socketReply(String)
    /// A socket fault is due, or a stalled socket reads again (`Worker+SocketFaults`).
    case socketFault(SocketFaultTimer)
    /// An action sent over SIP got no answer within `action_timeout` (its leg key and action slot).
    case sipAction(key: LegKey, slot: Int)
    /// The window in which outside parties' calls are taken is over (`OutsideCalls`).
    case outsideWindowClosed
    /// A sleeping SIP device's wake REGISTER, put off by its app's `wake_after` or a late-wake fault
    /// (`SIPSignaling+Wake`), for the push of `callID`: stale once the device woke for another call since.
    case sipWake(local: Int, callID: String)
}

/// A redial due after a drop (`behavior.redial_after_drop`): the dropped call's caller and callee, kept out of
/// the idle pool until the redial starts, and the arrival the redial call runs as.
struct RedialDue {
    let arrival: Arrival
    let caller: Int
    let callee: Int
}
