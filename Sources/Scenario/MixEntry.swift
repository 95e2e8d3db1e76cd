/// One flow in the call mix and its relative weight.
public struct MixEntry: Sendable, Equatable {
    /// A flow name the driver knows (`incoming-1to1`, …).
    public var flow: String
    /// Relative weight (> 0); weights need not add up to 100.
    public var weight: Double

    public init(flow: String, weight: Double) {
        self.flow = flow
        self.weight = weight
    }
}
