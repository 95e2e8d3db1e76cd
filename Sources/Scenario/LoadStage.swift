/// One stretch of the planned arrival rate. Stages run back to back; together they form a piecewise-linear
/// rate curve whose integral is the expected number of calls.
public enum LoadStage: Sendable, Equatable {
    /// A constant rate (calls per second) for `nanos`.
    case hold(rate: Double, nanos: UInt64)
    /// A rate changing linearly from `from` to `to` (calls per second) over `nanos`.
    case ramp(from: Double, to: Double, nanos: UInt64)

    /// How long the stage lasts.
    public var nanos: UInt64 {
        switch self {
        case .hold(_, let nanos), .ramp(_, _, let nanos): return nanos
        }
    }

    /// Rate at the start of the stage, per second.
    public var startRate: Double {
        switch self {
        case .hold(let rate, _): return rate
        case .ramp(let from, _, _): return from
        }
    }

    /// Rate at the end of the stage, per second; a duration longer than the stages holds this rate.
    public var endRate: Double {
        switch self {
        case .hold(let rate, _): return rate
        case .ramp(_, let to, _): return to
        }
    }
}
