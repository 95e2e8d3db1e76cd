/// The `capacity:` section of a scenario: the latency limit whose breaking marks the knee of a ramp, judged over
/// sliding windows of whole seconds, and whether the run stops once the knee is found.
///
/// Capacity planning asks "how many calls/s before deadlines slip?". A ramp answers it only if the answer is read
/// per window (a whole-run p99 mixes the easy start with the overloaded end), and stopping at the knee keeps an
/// overloaded target from drowning the report in its collapse.
public struct CapacitySpec: Sendable, Equatable, Codable {
    /// A latency statistic and its limit, e.g. `push_to_report.p99 < 100ms`.
    public var limit: Threshold
    /// Width of the sliding window in seconds.
    public var windowSeconds: Int
    /// End arrivals once a window breaks the limit (in-flight calls still drain).
    public var stopAtKnee: Bool
    /// Windows with fewer samples are not judged: at the foot of a ramp one slow first call would be the p99.
    public var minimumSamples: Int

    public init(limit: Threshold, windowSeconds: Int = 5, stopAtKnee: Bool = true, minimumSamples: Int = 20) {
        self.limit = limit
        self.windowSeconds = windowSeconds
        self.stopAtKnee = stopAtKnee
        self.minimumSamples = minimumSamples
    }

    /// The metric and statistic, or nil when the limit is not on a latency statistic.
    public var latency: (metric: String, statistic: Threshold.Statistic)? {
        guard case let .latency(metric, statistic) = limit.subject, statistic != .count else { return nil }
        return (metric, statistic)
    }
}
