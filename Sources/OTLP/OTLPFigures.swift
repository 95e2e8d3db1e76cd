import Metrics

/// A run's figures as OTLP metrics: every counter as a point of the cumulative monotonic sum `callstorm.events`
/// (attribute `counter`, named as in counters.csv and summary.json), every latency histogram as a point of the
/// exponential histogram `callstorm.latency` in seconds (attribute `metric`). One metric per kind with the report's
/// names as attributes, as the Prometheus endpoint does, so a dashboard and the report name things the same way.
public struct OTLPFigures: Sendable {
    public var counters: [String: Int64]
    /// Microseconds, as the recorder keeps them.
    public var histograms: [String: SparseHistogram]

    public init(counters: [String: Int64], histograms: [String: SparseHistogram]) {
        self.counters = counters
        self.histograms = histograms
    }

    public static let eventsMetric = "callstorm.events"
    public static let latencyMetric = "callstorm.latency"

    public func metrics(startUnixNanos: UInt64, now: UInt64,
                        buckets: ExponentialBuckets = ExponentialBuckets()) -> [OTLPMetric] {
        let sums = counters.sorted { $0.key < $1.key }.map { name, value in
            OTLPMetric.SumPoint(attributes: [OTLPAttribute("counter", name)], startUnixNanos: startUnixNanos,
                                timeUnixNanos: now, value: value)
        }
        let points = histograms.sorted { $0.key < $1.key }.map { name, histogram in
            buckets.point(histogram, attributes: [OTLPAttribute("metric", name)], startUnixNanos: startUnixNanos,
                          timeUnixNanos: now)
        }
        var metrics = [OTLPMetric(name: Self.eventsMetric, description: "The run's counters, named as in counters.csv.",
                                  unit: "1", data: .sum(sums, monotonic: true))]
        if !points.isEmpty {
            metrics.append(OTLPMetric(name: Self.latencyMetric, description: "The run's latency histograms.",
                                      unit: "s", data: .exponentialHistogram(points)))
        }
        return metrics
    }
}
