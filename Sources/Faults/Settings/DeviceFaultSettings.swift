import Quantities

/// Faults in the simulated app.
public struct DeviceFaultSettings: Sendable, Equatable {
    /// Processing before the VoIP push is reported (a slow app; long ones miss the deadline).
    public var reportDelay: Distribution?
    /// Share of the window's devices that are offline: they get no pushes and their requests fail.
    public var offline: Double = 0
    /// Slow media setup: a join is fulfilled this much later.
    public var joinDelay: Distribution?
    /// Media setup fails: the join action fails after the server accepted it.
    public var joinFailure: Double = 0
    /// Each device the window hits has its clock off by an amount drawn (from the seed, once per device)
    /// uniformly within ± this: the device times it sends (`${device.time}`, the reference join's `reportedAt`)
    /// are off by it.
    public var clockSkewNanos: UInt64 = 0
    /// The device's signaling socket ends (abruptly, or with a close code).
    public var socketDrop: SocketDropFaults?
    /// The device reads nothing from its signaling socket for a while.
    public var socketStall: SocketStallFaults?
    /// The phone's own life: interruptions, manager resets, relaunches, filtered calls (issue 37).
    public var life = PhoneLifeFaults()

    public init() {}
}
