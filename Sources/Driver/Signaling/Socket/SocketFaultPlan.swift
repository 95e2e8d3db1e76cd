import Faults

/// A timer of the socket faults: the next planned fault is due, or a stalled socket reads again.
enum SocketFaultTimer: Equatable {
    case due
    case resume(socket: UInt64)
}

/// A worker's socket faults: every planned fault of its devices in time order (drawn by Faults before the load
/// starts), the sockets a drop is ending and the sockets stalled now. Owned by the worker's loop.
struct SocketFaultPlan {
    var pending: [(at: UInt64, local: Int, event: SocketFaultEvent)] = []
    var next = 0
    /// Pool ids of sockets a drop fault is ending: their end is callstorm's doing.
    var dropping: Set<UInt64> = []
    var stalled: Set<UInt64> = []
    /// Whether the scenario has storms (only then is a socket's end checked against them).
    var storms = false
}
