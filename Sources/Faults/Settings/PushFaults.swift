import Quantities

/// Faults on the way from the gateway to the device (APNs itself misbehaving).
public struct PushFaults: Sendable, Equatable {
    /// Extra time before delivery.
    public var delay: Distribution?
    /// Accepted with 200, never delivered.
    public var drop: Double = 0
    /// Delivered twice.
    public var duplicate: Double = 0
    /// Answered with this APNs status (429, 500, 503, 410) instead of being accepted.
    public var errorStatus: Int = 503
    public var errorRate: Double = 0
    /// Share of pushes held back and delivered right after the device's next push (overtaken by it), or after
    /// `reorderHoldNanos` when no later push comes.
    public var reorder: Double = 0
    public var reorderHoldNanos: UInt64 = 1_000_000_000
    /// For the whole window the gateway refuses every push (503 ServiceUnavailable) or stalls (takes the
    /// stream and answers nothing until the window ends).
    public var brownout: Brownout?
    /// Share of pushes after whose answer the gateway sends HTTP/2 GOAWAY (NO_ERROR) on that connection: the
    /// target's APNs client must open a new one.
    public var goaway: Double = 0

    public enum Brownout: String, Sendable, Equatable, CaseIterable {
        case refuse
        case stall
    }

    public init() {}
}
