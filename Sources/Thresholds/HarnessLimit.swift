/// How callstorm judges itself (`harness:` in a scenario): the limit on its own scheduler lag, the window it is
/// judged over, and what the run does once the limit is passed.
///
/// A load generator that starts calls late measures itself, not the target: the open model keeps the planned
/// rate on paper while the real rate and every latency downstream are bent by the generator's own backlog. So the
/// run names the second from which its figures stop meaning anything about the target.
public struct HarnessLimit: Sendable, Equatable, Codable {
    public enum Action: String, Sendable, Equatable, Codable, CaseIterable {
        /// Say so in the verdict and the reports; the run goes on.
        case report
        /// End arrivals at that point (calls in flight drain); the figures before it stand.
        case endArrivals = "end_arrivals"
        /// Stop the run at once, as `abort_on_fail` does.
        case abort
    }

    /// Scheduler lag (planned → actual start of a call) statistic limit, in microseconds.
    public var lagLimitMicros: Int64
    /// The percentile of the lag judged in each window (99 by default).
    public var percentile: Double
    /// Width of the sliding window in whole seconds.
    public var windowSeconds: Int
    /// Windows with fewer lag samples are not judged (the first call of a run can be slow to start).
    public var minimumSamples: Int
    public var action: Action

    public static let defaultLagLimitMicros: Int64 = 10_000

    public init(lagLimitMicros: Int64 = HarnessLimit.defaultLagLimitMicros, percentile: Double = 99,
                windowSeconds: Int = 5, minimumSamples: Int = 20, action: Action = .report) {
        self.lagLimitMicros = lagLimitMicros
        self.percentile = percentile
        self.windowSeconds = windowSeconds
        self.minimumSamples = minimumSamples
        self.action = action
    }
}
