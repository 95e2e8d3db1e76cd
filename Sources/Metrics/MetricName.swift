/// The names of the run's counters and histograms, in one place: a name written in two modules (a producer and
/// the report that reads it) is spelled once here, so renaming one cannot silently break the other.
/// Names are stable: they are the keys of counters.csv, summary.json, thresholds (`slo:`) and the metrics
/// endpoint, so a change here is a change users see.
public enum MetricName {
    // MARK: - Faults

    /// A fault that acted: `faults.push.dropped`, `faults.device.join_failed`, `faults.target.killed`.
    public static func fault(_ kind: String) -> String { "faults.\(kind)" }
    /// A push fault split by the push's type: `faults.push.delayed.voip`.
    public static func fault(_ kind: String, pushType: String) -> String { "faults.\(kind).\(pushType)" }
    /// Connections a network toxic acted on: `faults.network.latency.connections`.
    public static func networkToxicConnections(_ toxicKind: String) -> String {
        "faults.network.\(toxicKind).connections"
    }

    // MARK: - The fault proxy

    public static let networkConnections = "network.connections"
    public static let networkUpstreamConnectFailures = "network.upstream_connect_failures"
    public static let networkResets = "network.resets"
    public static let networkToxicCloses = "network.toxic_closes"
}
