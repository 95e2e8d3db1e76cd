/// `device: { offline: 10% }`: that share of the window's devices (drawn per device) is offline: APNs accepts
/// their pushes and they never arrive, and their own requests fail like a dead network.
public struct OfflineFault: DeviceFault, PushPathFault {
    public static let names = ["offline"]
    public static let family = FaultFamily.device
    public static let precedence = 1
    public static let stream = DrawStream.offline
    public let probability: Double

    public init?(window: FaultWindow) {
        guard let device = window.device, device.offline > 0 else { return nil }
        probability = device.offline
    }

    public static func summary(of window: FaultWindow) -> String? {
        guard let device = window.device, device.offline > 0 else { return nil }
        return "offline \(FaultDescription.percent(device.offline))"
    }

    /// On the push path the share grows with the window's ramp.
    public func apply(to decision: inout PushDecision, draws: FaultDraws) {
        guard draws.hitsDevice(probability, Self.stream) else { return }
        decision.notes.append(draws.note("device.offline_push_lost"))
        decision.fate = .drop
    }
}

extension FaultSchedule {
    /// Is `device` offline now (for its requests: at the window's full share, whatever its ramp)?
    public func offline(at sinceLoad: UInt64, device: Int) -> Bool {
        active(at: sinceLoad, device: device).contains { entry in
            guard let fault = OfflineFault(window: entry.window) else { return false }
            return draw(entry.index, device, 0, OfflineFault.stream) < fault.probability
        }
    }
}
