import Quantities

/// The draws of one subject (a device's part in a call, or the device itself) in one window: what a fault
/// decides with. Every probability and delay is scaled by the window's ramp strength.
public struct FaultDraws: Sendable {
    public let schedule: FaultSchedule
    public let window: Int
    public let windowName: String
    /// The device's index (offline and clock skew are decided per device).
    public let device: Int
    /// `FaultSchedule.subject(call:role:)` (push and join faults are decided per part in a call).
    public let subject: Int
    /// The push number in the call, or the action number; 0 for once-per-call decisions.
    public let seq: UInt64
    /// The window's ramp strength, 0…1.
    public let strength: Double

    public init(schedule: FaultSchedule, window: Int, windowName: String, device: Int, subject: Int, seq: UInt64,
                strength: Double) {
        self.schedule = schedule
        self.window = window
        self.windowName = windowName
        self.device = device
        self.subject = subject
        self.seq = seq
        self.strength = strength
    }

    /// Whether a fault of `probability` hits this subject's decision `seq` (never when the probability is 0).
    public func hits(_ probability: Double, _ stream: DrawStream) -> Bool {
        probability > 0 && schedule.draw(window, subject, seq, stream) < probability * strength
    }

    /// Whether a fault of `probability` hits the device itself (one decision per device and window).
    public func hitsDevice(_ probability: Double, _ stream: DrawStream) -> Bool {
        probability > 0 && schedule.draw(window, device, 0, stream) < probability * strength
    }

    /// A sample of `distribution` for this subject, scaled by the strength; `seq` overrides the decision number.
    public func sample(_ distribution: Distribution, _ stream: DrawStream, seq: UInt64? = nil) -> UInt64 {
        var rng = schedule.rng(window, subject, seq ?? self.seq, stream)
        return UInt64(Double(distribution.sample(using: &rng)) * strength)
    }

    /// A note that this window's fault `kind` acted, for `faults.csv` and the `faults.<kind>` counters.
    public func note(_ kind: String) -> FaultNote { FaultNote(window: windowName, kind: kind) }
}
