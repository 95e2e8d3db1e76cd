import CallModel
import Scenario

/// Which side of a call a device plays.
enum Role {
    case caller
    case callee
}

/// A simulated device: its identity, whether it is registered, and the call it is in (devices are state machines
/// on a worker queue, not threads).
struct Device {
    let identity: DeviceIdentity
    var registered = false
    var callID: Int?
    var role: Role = .caller
    var conversation: Conversation?
    var deadlineMisses = 0
}

/// One planned call of the `incoming-1to1` flow on the worker that runs it: the arrival that planned it, the two
/// devices, and the actions taken so far.
struct Call {
    let arrival: Arrival
    let caller: Int
    let callee: Int
    var conversationID: String?
    var startIssuedNanos: UInt64 = 0
    var actions: [Action] = []
    /// For each action: the local index of the device that performed it, and its flow step.
    var actors: [Int] = []
    var steps: [String] = []
    var callerLeft = false
    var calleeLeft = false
    var failed = false

    var isOver: Bool { callerLeft && calleeLeft }
}

/// What the worker's timer wheel holds: small values, no closures, so a scheduled step allocates nothing.
enum TimerEvent {
    case arrival(Arrival)
    case answer(call: Int, plannedNanos: UInt64)
    case hangup(call: Int, plannedNanos: UInt64)
    case remoteEndWatchdog(call: Int)
    case tick
}
