/// How arrival times are spread around the planned rate.
public enum ArrivalProcess: String, Sendable, Equatable, CaseIterable {
    /// Exactly evenly spaced at the planned rate: the most repeatable load, good for regression runs.
    case uniform
    /// A Poisson process with the planned rate as its intensity: the bursts real users produce.
    case poisson
}
