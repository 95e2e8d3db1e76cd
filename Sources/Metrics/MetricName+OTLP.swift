// MARK: - OpenTelemetry export (--otlp)

extension MetricName {
    /// Spans not delivered to the collector: its queue was full (a slow or absent collector), or their request
    /// failed or was refused. The run does not wait for a collector; this says what it lost.
    public static let otlpDropped = "otlp.dropped"
    /// Spans the collector accepted.
    public static let otlpSpansExported = "otlp.spans_exported"
    /// Export requests (metrics and traces) that got no answer or an error.
    public static let otlpExportsFailed = "otlp.exports_failed"
}

extension Metric {
    public static let otlpDropped = Metric(named: MetricName.otlpDropped)
    public static let otlpSpansExported = Metric(named: MetricName.otlpSpansExported)
    public static let otlpExportsFailed = Metric(named: MetricName.otlpExportsFailed)
}
