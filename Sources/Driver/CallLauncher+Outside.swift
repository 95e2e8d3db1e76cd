import Metrics
import Scenario

/// Outside calls (`OutsideCalls`): a call nobody planned that reaches an idle device becomes a call of an
/// outside-started flow, on that device, with its conversation `main` bound to the arriving call.
extension CallLauncher {
    /// Called (`WorkerEffect.takeOutside`) when `local`, in no call, is reached by the call `uuid` (a VoIP
    /// push it reported, or a SIP INVITE). Returns whether a call now runs on the device.
    func takeOutsideCall(_ local: Int, uuid: String, now: UInt64) -> Bool {
        guard outside.expected, table.devices[local].callID == nil, table.devices[local].registered else {
            return false
        }
        guard outside.isOpen(now) else {
            books.count(.callsOutsideRefused("after_window"), at: now)
            return false
        }
        return startOutside(on: local, uuid: uuid, now: now, waiting: false) != nil
    }

    /// Called (`WorkerEffect.takeWaiting`) when `local`, in a call, is reached by another call `uuid` the
    /// device model lets it take (call waiting, `SIPSignaling+CallWaiting`): it runs an outside-started flow beside
    /// the device's call. Returns the new call's id, nil when none was started.
    func takeWaitingCall(_ local: Int, uuid: String, now: UInt64) -> Int? {
        guard outside.expected, table.devices[local].callID != nil, table.devices[local].waitingCall == nil else {
            return nil
        }
        guard outside.isOpen(now) else {
            books.count(.callsOutsideRefused("after_window"), at: now)
            return nil
        }
        return startOutside(on: local, uuid: uuid, now: now, waiting: true)
    }

    /// Draws an outside-started flow and launches it with `local` in its first device role; any other device
    /// role takes idle devices. `local` is idle, or busy in another call (`waiting`).
    private func startOutside(on local: Int, uuid: String, now: UInt64, waiting: Bool) -> Int? {
        var arrival = outside.arrival(seed: settings.seed, behavior: settings.behavior)
        let flow = settings.flows[arrival.flow]
        let others = flow.deviceRoles.dropFirst()
        guard table.devices.idleCount - (waiting ? 0 : 1) >= others.count else {
            books.count(.callsOutsideRefused("no_idle_device"), at: now)
            return nil
        }
        // With users (`users:`) the device rung takes its whole user (held by its first device) and acts for it; a
        // waiting call runs beside the user's call on that device alone.
        if !waiting { table.devices.reserve(table.devices.devicesOfUser(local)[0]) }
        var roles: [String: Int] = [:]
        roles[flow.deviceRoles[0]] = local
        var siblings = waiting ? [:] : otherDevices(of: [local])
        for (r, role) in others.enumerated() {
            roles[role] = takeIdleUser(call: arrival.index, role: r + 1, others: &siblings)
        }
        arrival.plannedNanos = arrivals.loadStart > 0 && now > arrivals.loadStart ? now - arrivals.loadStart : 0
        books.count(.callsStartedByOutside, at: now)
        launch(arrival, flow: flow, roles: roles, planned: now, now: now, outsideConversation: uuid,
               waitingOn: waiting ? local : nil, others: siblings)
        return arrival.index
    }

    /// The window for outside calls closes (the wheel's `outsideWindowClosed`): the worker may drain now.
    func outsideWindowClosed() {
        checkDrained()
    }
}
