import Locking

/// Which planned call and role each device is in, shared by the workers (who assign devices to calls) and the
/// push sink (which decides push faults on the gateway's threads), with each device's push number in its call.
/// A device keeps its last call until it gets the next one: a push that arrives after its call completed (an
/// `ended` racing the completion) still belongs to that call, so it is decided the same way every run.
final class DeviceCalls: Sendable {
    struct Slot: Sendable {
        var call = -1
        var role = -1
        /// Index of the call's flow in `DriverSettings.flows`.
        var flow = 0
        var plannedSinceLoad: UInt64 = 0
        var pushes: UInt64 = 0
    }

    private let slots: Mutex<[Slot]>

    init(devices: Int) { slots = Mutex(Array(repeating: Slot(), count: devices)) }

    func assign(_ device: Int, call: Int, role: Int, flow: Int, plannedSinceLoad: UInt64) {
        slots.withLock { $0[device] = Slot(call: call, role: role, flow: flow, plannedSinceLoad: plannedSinceLoad) }
    }

    /// The device's call as it stands, without counting a push; nil when it is in none.
    func current(_ device: Int) -> Slot? {
        slots.withLock { $0[device].call >= 0 ? $0[device] : nil }
    }

    /// The device's call, with the number of this push within it (1 for the first); nil when it is in none.
    func nextPush(_ device: Int) -> Slot? {
        slots.withLock { s -> Slot? in
            guard s[device].call >= 0 else { return nil }
            s[device].pushes += 1
            return s[device]
        }
    }
}
