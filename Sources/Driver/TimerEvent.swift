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
    /// A timer of a device signaling kind (a socket's linger, a SIP action's timeout), routed to the kind.
    case signaling(SignalingTimer)
    /// The window in which outside parties' calls are taken is over (`OutsideCalls`).
    case outsideWindowClosed
}

/// A redial due after a drop (`behavior.redial_after_drop`): the dropped call's caller and callee, kept out of
/// the idle pool until the redial starts, and the arrival the redial call runs as.
struct RedialDue {
    let arrival: Arrival
    let caller: Int
    let callee: Int
}
