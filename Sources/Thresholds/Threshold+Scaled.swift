/// Figures a threshold names by what they mean though the run records them scaled into a histogram's
/// microseconds: `media.mos.p5: "> 3.5"` judges the streams' MOS, recorded × 1000 as `media.mos_x1000`
/// (`MetricName.mosX1000`; Thresholds sits below Metrics, so the names are spelled here once).
public struct ScaledFigure: Sendable, Equatable {
    /// The histogram the run records (`media.mos_x1000`).
    public var recorded: String
    /// Recorded units per unit of the limit: 1000 for MOS.
    public var scale: Double
    /// Decimals the measured value is shown with (`4.409`).
    public var decimals: Int

    /// The name a threshold uses → how it is recorded.
    public static let all: [String: ScaledFigure] = [
        "media.mos": ScaledFigure(recorded: "media.mos_x1000", scale: 1000, decimals: 3),
    ]

    /// `value` (in recorded units) in the limit's terms, as text: 4409 → `4.409`.
    public func text(_ value: Double) -> String {
        let units = Int64((value / scale * pow10).rounded())
        guard decimals > 0 else { return String(units) }
        let whole = units.magnitude / UInt64(pow10), fraction = String(units.magnitude % UInt64(pow10))
        let padded = String(repeating: "0", count: decimals - fraction.count) + fraction
        return (units < 0 ? "-" : "") + "\(whole)." + padded
    }

    private var pow10: Double { (0..<decimals).reduce(1.0) { acc, _ in acc * 10 } }
}

extension Threshold {
    /// The scaled figure a latency key names (`media.mos.p5` → MOS), nil for a plain histogram.
    public var scaledFigure: ScaledFigure? {
        guard case let .latency(metric, _) = subject else { return nil }
        return ScaledFigure.all[metric]
    }
}
