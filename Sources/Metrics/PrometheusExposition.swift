/// Renders a run's live figures as Prometheus text exposition (format 0.0.4). Pure, so it is tested without a
/// server; it lives with the figures it renders (the recorder's counters and histograms), and the CLI only serves
/// the text. Names keep the report's vocabulary in labels (`counter="calls.started"`, `metric="join.fulfillment"`)
/// so a dashboard panel and the final report name the same thing the same way.
public struct PrometheusExposition: Sendable {
    public struct RunLabels: Sendable {
        public var scenario: String
        public var seed: UInt64
        public var shard: String

        public init(scenario: String, seed: UInt64, shard: String) {
            self.scenario = scenario
            self.seed = seed
            self.shard = shard
        }
    }

    /// What one scrape shows: every worker's counters and histograms added, and the calls in progress.
    public struct Figures: Sendable {
        public var counters: [String: Int64]
        public var histograms: [String: SparseHistogram]
        public var activeConversations: Int
        /// Whether every worker finished, so these are the final values.
        public var final: Bool

        public init(counters: [String: Int64], histograms: [String: SparseHistogram], activeConversations: Int,
                    final: Bool) {
            self.counters = counters
            self.histograms = histograms
            self.activeConversations = activeConversations
            self.final = final
        }
    }

    /// Upper bounds of the latency histogram buckets, in microseconds (1 ms … 30 s).
    static let bucketMicros: [Int64] = [
        1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
        1_000_000, 2_000_000, 5_000_000, 10_000_000, 30_000_000,
    ]
    static let quantiles: [Double] = [0.5, 0.9, 0.99, 0.999]

    public var labels: RunLabels

    public init(labels: RunLabels) {
        self.labels = labels
    }

    public func render(_ snapshot: Figures, elapsedSeconds: Double) -> String {
        var out = ""
        let run = "scenario=\"\(Self.escape(labels.scenario))\",seed=\"\(labels.seed)\",shard=\"\(labels.shard)\""

        out += "# HELP callstorm_run_info The run this process is part of.\n# TYPE callstorm_run_info gauge\n"
        out += "callstorm_run_info{\(run)} 1\n"
        out += "# HELP callstorm_run_final 1 once every worker finished and the values are final.\n"
        out += "# TYPE callstorm_run_final gauge\ncallstorm_run_final{\(run)} \(snapshot.final ? 1 : 0)\n"
        out += "# HELP callstorm_elapsed_seconds Seconds since the load started.\n"
        out += "# TYPE callstorm_elapsed_seconds gauge\n"
        out += "callstorm_elapsed_seconds{\(run)} \(Self.number(elapsedSeconds))\n"
        out += "# HELP callstorm_active_conversations Calls in progress on this shard.\n"
        out += "# TYPE callstorm_active_conversations gauge\n"
        out += "callstorm_active_conversations{\(run)} \(snapshot.activeConversations)\n"

        out += "# HELP callstorm_events_total Counters of the run, named as in the report's counters.csv.\n"
        out += "# TYPE callstorm_events_total counter\n"
        for (name, value) in snapshot.counters.sorted(by: { $0.key < $1.key }) {
            out += "callstorm_events_total{\(run),counter=\"\(Self.escape(name))\"} \(value)\n"
        }

        let histograms = snapshot.histograms.sorted { $0.key < $1.key }
        out += "# HELP callstorm_latency_seconds Latency histograms of the run (scheduler_lag is the harness's own).\n"
        out += "# TYPE callstorm_latency_seconds histogram\n"
        for (name, h) in histograms {
            let base = "\(run),metric=\"\(Self.escape(name))\""
            for bound in Self.bucketMicros {
                out += "callstorm_latency_seconds_bucket{\(base),le=\"\(Self.seconds(bound))\"} " +
                    "\(h.count(atOrBelow: bound))\n"
            }
            out += "callstorm_latency_seconds_bucket{\(base),le=\"+Inf\"} \(h.totalCount)\n"
            out += "callstorm_latency_seconds_sum{\(base)} \(Self.number(h.mean * Double(h.totalCount) / 1e6))\n"
            out += "callstorm_latency_seconds_count{\(base)} \(h.totalCount)\n"
        }
        out += "# HELP callstorm_latency_quantile_seconds Exact HdrHistogram percentiles, as in the report.\n"
        out += "# TYPE callstorm_latency_quantile_seconds gauge\n"
        for (name, h) in histograms where !h.isEmpty {
            for q in Self.quantiles {
                out += "callstorm_latency_quantile_seconds{\(run),metric=\"\(Self.escape(name))\",quantile=\"\(q)\"} " +
                    "\(Self.seconds(h.value(atPercentile: q * 100)))\n"
            }
        }
        out += "# HELP callstorm_latency_max_seconds Largest sample so far.\n"
        out += "# TYPE callstorm_latency_max_seconds gauge\n"
        for (name, h) in histograms where !h.isEmpty {
            out += "callstorm_latency_max_seconds{\(run),metric=\"\(Self.escape(name))\"} \(Self.seconds(h.max))\n"
        }
        return out
    }

    /// Microseconds as exact decimal seconds (`1500` → `0.0015`), so a scrape agrees digit for digit with the
    /// report's milliseconds.
    public static func seconds(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let m = micros.magnitude
        let whole = m / 1_000_000
        var frac = String(m % 1_000_000)
        frac = String(repeating: "0", count: 6 - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        return frac.isEmpty ? "\(sign)\(whole)" : "\(sign)\(whole).\(frac)"
    }

    static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : (value.isNaN ? "NaN" : (value > 0 ? "+Inf" : "-Inf"))
    }

    static func escape(_ label: String) -> String {
        var out = ""
        for c in label {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }
}
