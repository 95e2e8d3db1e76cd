#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A distribution of durations, in nanoseconds, for think times such as answer delay and talk time.
///
/// Real users do not answer after exactly one second; heavy-tailed shapes (lognormal, pareto) reproduce the long
/// calls that keep capacity occupied. Samples are never negative: a draw below zero is clamped to 0.
public enum Distribution: Sendable, Equatable {
    case constant(UInt64)
    /// Uniform between the two bounds, both included.
    case uniform(UInt64, UInt64)
    case normal(mean: UInt64, stddev: UInt64)
    case exponential(mean: UInt64)
    /// `median · e^(sigma·Z)` for standard normal Z.
    case lognormal(median: UInt64, sigma: Double)
    /// Pareto type I: at least `scale`, with tail index `shape` (the mean is finite only for shape > 1).
    case pareto(scale: UInt64, shape: Double)

    /// Draws one duration in nanoseconds. The number of values taken from `generator` depends only on the case,
    /// so a seeded stream stays aligned across runs.
    public func sample<R: RandomNumberGenerator>(using generator: inout R) -> UInt64 {
        switch self {
        case .constant(let value):
            return value
        case .uniform(let low, let high):
            return low <= high ? UInt64.random(in: low...high, using: &generator) : low
        case .normal(let mean, let stddev):
            return Self.nanos(Double(mean) + Double(stddev) * Self.standardNormal(using: &generator))
        case .exponential(let mean):
            return Self.nanos(-Double(mean) * log(Self.openUnit(using: &generator)))
        case .lognormal(let median, let sigma):
            return Self.nanos(Double(median) * exp(sigma * Self.standardNormal(using: &generator)))
        case .pareto(let scale, let shape):
            guard shape > 0 else { return scale }
            return Self.nanos(Double(scale) / pow(Self.openUnit(using: &generator), 1 / shape))
        }
    }

    /// The distribution's mean in nanoseconds, or nil when it is infinite (pareto with shape ≤ 1).
    public var mean: Double? {
        switch self {
        case .constant(let value): return Double(value)
        case .uniform(let low, let high): return (Double(low) + Double(high)) / 2
        case .normal(let mean, _), .exponential(let mean): return Double(mean)
        case .lognormal(let median, let sigma): return Double(median) * exp(sigma * sigma / 2)
        case .pareto(let scale, let shape): return shape > 1 ? Double(scale) * shape / (shape - 1) : nil
        }
    }

    /// Box–Muller; always consumes two values so streams stay aligned.
    private static func standardNormal<R: RandomNumberGenerator>(using generator: inout R) -> Double {
        let u1 = openUnit(using: &generator)
        let u2 = Double(generator.next() >> 11) * 0x1p-53
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    /// A uniform value in (0, 1], safe for `log` and as a divisor.
    private static func openUnit<R: RandomNumberGenerator>(using generator: inout R) -> Double {
        Double((generator.next() >> 11) + 1) * 0x1p-53
    }

    /// Converts a real-valued draw to nanoseconds, clamping at 0 and at the largest representable value.
    static func nanos(_ value: Double) -> UInt64 {
        guard value > 0 else { return 0 }  // also catches NaN
        guard value < 18_446_744_073_709_549_568.0 else { return .max }
        return UInt64(value.rounded())
    }
}

extension Distribution: CustomStringConvertible {
    /// The distribution in the scenario file's own words, e.g. `lognormal(median 3s, sigma 0.5)`.
    public var description: String {
        let d = Quantity.format(nanos:)
        switch self {
        case .constant(let value): return d(value)
        case .uniform(let low, let high): return "uniform(\(d(low))..\(d(high)))"
        case .normal(let mean, let stddev): return "normal(mean \(d(mean)), stddev \(d(stddev)))"
        case .exponential(let mean): return "exponential(mean \(d(mean)))"
        case .lognormal(let median, let sigma):
            return "lognormal(median \(d(median)), sigma \(Quantity.decimal(sigma)))"
        case .pareto(let scale, let shape): return "pareto(scale \(d(scale)), shape \(Quantity.decimal(shape)))"
        }
    }
}
