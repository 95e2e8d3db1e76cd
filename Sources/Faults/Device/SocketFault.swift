/// What a socket fault does to one device's signaling socket at its instant.
public enum SocketFaultAction: Sendable, Equatable {
    /// The socket ends: abruptly (no closing handshake) when `code` is nil, else with a close frame carrying it.
    case drop(code: UInt16?)
    /// The device reads nothing from the socket for this long.
    case stall(nanos: UInt64)
}

/// One socket fault a window holds for one device: when (since the load started), what, and its note.
public struct SocketFaultEvent: Sendable, Equatable {
    public let atNanos: UInt64
    /// The window's index in the scenario (its `flows` narrow it to devices in a call of those flows then).
    public let window: Int
    public let action: SocketFaultAction
    public let note: FaultNote
    /// The roles a device must play in its call at the instant; empty: any device.
    public let roles: [String]

    public init(atNanos: UInt64, window: Int, action: SocketFaultAction, note: FaultNote, roles: [String] = []) {
        self.atNanos = atNanos
        self.window = window
        self.action = action
        self.note = note
        self.roles = roles
    }
}

/// A device fault on the device's signaling socket. A socket belongs to a device, not to a call (an `always`
/// socket outlives many calls), so socket faults are drawn per (window, device): whether the device is hit,
/// and at which instant of the window, both from the fault's own stream. The whole plan of a device is known
/// before the load starts and does not move with timing; whether it acts depends on the socket being open then.
public protocol SocketFault: DeviceFault, OrderedFault {
    /// This fault's effect on the device `draws` describe, at `instant`; nil when it does not hit.
    func decide(_ draws: FaultDraws, at instant: UInt64) -> SocketFaultEvent?
}

extension FaultSchedule {
    /// Whether any window has socket faults for devices (the driver plans none otherwise).
    public var hasSocketFaults: Bool {
        windows.contains { w in FaultRegistry.socketPath.contains { $0.init(window: w) != nil } }
    }

    /// Every socket fault the windows hold for `device`, in time order: per window that includes the device (its
    /// `devices` share) and per socket fault kind, one instant drawn uniformly over the window, then whether it
    /// hits at the window's strength at that instant.
    public func socketFaults(device: Int) -> [SocketFaultEvent] {
        var out: [SocketFaultEvent] = []
        for (i, w) in windows.enumerated() where w.devices >= 1 || draw(i, device, 0, .membership) < w.devices {
            for kind in FaultRegistry.socketPath {
                guard let fault = kind.init(window: w) else { continue }
                let instant = w.atNanos + UInt64(draw(i, device, 1, kind.stream) * Double(w.forNanos))
                let draws = draws(i, device: device, subject: device, seq: 0, plannedSinceLoad: instant)
                if let event = fault.decide(draws, at: instant) { out.append(event) }
            }
        }
        return out.sorted { ($0.atNanos, $0.window) < ($1.atNanos, $1.window) }
    }

    /// Whether `event` applies to a device whose current call is of `flow`, where it plays `role` (both nil: in
    /// no call). A window with `flows`, or a fault with `roles`, hits only devices in such a call at its instant.
    public func applies(_ event: SocketFaultEvent, flow: String?, role: String?) -> Bool {
        let flows = windows[event.window].flows
        guard flows.isEmpty || flow.map({ flows.contains($0) }) == true else { return false }
        return event.roles.isEmpty || role.map { event.roles.contains($0) } == true
    }
}
