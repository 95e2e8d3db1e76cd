import Locking

/// Which planned call and role each device is in, shared by the workers (who assign devices to calls) and the
/// push sink (which decides push faults on the gateway's threads), with each device's push number in its call.
/// A device keeps its last call until it gets the next one: a push that arrives after its call completed (an
/// `ended` racing the completion) still belongs to that call, so it is decided the same way every run.
///
/// A device running a second call beside its own (call waiting, `Device.waitingCall`) has a slot for that one
/// too, keyed by its conversation: a push about that conversation is drawn and logged under the waiting call, so
/// it neither excuses the device's own call nor shifts its draws; when either call ends the other is the
/// device's call (`handOver`).
final class DeviceCalls: Sendable {
    struct Slot: Sendable {
        var call = -1
        var role = -1
        /// Index of the call's flow in `DriverSettings.flows`.
        var flow = 0
        var plannedSinceLoad: UInt64 = 0
        var pushes: UInt64 = 0
    }

    /// One device: its call, and the waiting call with the conversation its pushes name.
    private struct Entry: Sendable {
        var call = Slot()
        var waiting: (conversation: String, slot: Slot)?
    }

    private let entries: Mutex<[Entry]>

    init(devices: Int) { entries = Mutex(Array(repeating: Entry(), count: devices)) }

    func assign(_ device: Int, call: Int, role: Int, flow: Int, plannedSinceLoad: UInt64) {
        let slot = Slot(call: call, role: role, flow: flow, plannedSinceLoad: plannedSinceLoad)
        entries.withLock { $0[device] = Entry(call: slot) }
    }

    /// `device`, in a call, takes `call` beside it, the call of conversation `conversation`.
    func assignWaiting(_ device: Int, conversation: String, call: Int, role: Int, flow: Int,
                       plannedSinceLoad: UInt64) {
        let slot = Slot(call: call, role: role, flow: flow, plannedSinceLoad: plannedSinceLoad)
        entries.withLock { $0[device].waiting = (conversation, slot) }
    }

    /// Call `ending` is over on `device`, which stays in its other one. The device's call ended: the waiting call
    /// is now the device's call. The waiting call ended: its slot stays until the device's next call, so a push
    /// of its conversation arriving after it completed is still its own (as for a device's last call).
    func handOver(_ device: Int, ending: Int) {
        entries.withLock { e in
            guard let waiting = e[device].waiting, e[device].call.call == ending else { return }
            e[device].call = waiting.slot
            e[device].waiting = nil
        }
    }

    /// The device's call as it stands, without counting a push; nil when it is in none.
    func current(_ device: Int) -> Slot? {
        entries.withLock { $0[device].call.call >= 0 ? $0[device].call : nil }
    }

    /// The call a push to `device` belongs to, with the number of this push within it (1 for the first); nil when
    /// the device is in none. `conversation` reads the push's conversation; it is called only when the device runs
    /// a waiting call (then a push about the waiting call's conversation is that call's).
    func nextPush(_ device: Int, conversation: () -> String?) -> Slot? {
        entries.withLock { e -> Slot? in
            if let waiting = e[device].waiting, conversation() == waiting.conversation {
                e[device].waiting?.slot.pushes += 1
                return e[device].waiting?.slot
            }
            guard e[device].call.call >= 0 else { return nil }
            e[device].call.pushes += 1
            return e[device].call
        }
    }
}
