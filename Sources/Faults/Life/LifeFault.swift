import Quantities

/// When in a call a life event can hit a device.
public enum LifeMoment: Sendable, Equatable {
    /// The call just connected (a join was fulfilled): interruptions, resets, relaunches.
    case connected
    /// The call rings on the device (its VoIP push or INVITE was reported): filters.
    case ringing
}

/// A device fault from the phone's own life (`PhoneLifeFaults`): drawn per call part at its moment, from its
/// own stream, so one event never moves another's draws.
public protocol LifeFault: DeviceFault, OrderedFault {
    static var moment: LifeMoment { get }
    /// The event for the part `draws` describe; nil when it does not hit.
    func decide(_ draws: FaultDraws) -> LifeEvent?
}

extension FaultSchedule {
    /// Whether any window has life events (the driver asks for none otherwise).
    public var hasLifeEvents: Bool { windows.contains { !($0.device?.life.isEmpty ?? true) } }

    /// The life event of the device's part `subject` at `moment` of the call planned at `plannedSinceLoad`: the
    /// first that hits, window by window in the registry's order, with how long after the moment it acts.
    public func lifeEvent(at moment: LifeMoment, device: Int, subject: Int, plannedSinceLoad: UInt64, flow: String)
        -> (event: LifeEvent, afterNanos: UInt64, note: FaultNote)? {
        for (i, w) in active(forCallPlannedAt: plannedSinceLoad, device: device, flow: flow) {
            guard let life = w.device?.life, !life.isEmpty else { continue }
            let draws = draws(i, device: device, subject: subject, seq: 0, plannedSinceLoad: plannedSinceLoad)
            for kind in FaultRegistry.lifePath where kind.moment == moment {
                guard let fault = kind.init(window: w), let event = fault.decide(draws) else { continue }
                let after = moment == .ringing ? 0
                    : draws.sample(life.after ?? .constant(Self.lifeAfterNanos), DrawStream("device.life_after"))
                return (event, after, draws.note(event.faultKind))
            }
        }
        return nil
    }

    /// The default gap between a call connecting and its life event: 200 ms.
    public static let lifeAfterNanos: UInt64 = 200_000_000
}
