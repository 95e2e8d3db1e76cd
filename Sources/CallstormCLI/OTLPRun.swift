import Checker
import Driver
import Foundation
import Metrics
import OTLP
import OTLPExport
import Scenario

/// OpenTelemetry export around one run (`--otlp URL`, or `OTEL_EXPORTER_OTLP_ENDPOINT`): the exporter started
/// beside the driver, each worker's span buffer, the spans left flushed and `otlp.*` counted before the report,
/// the checker's findings as spans of their own, and the report's final figures as the last metrics export.
final class OTLPRun {
    let configuration: OTLPConfiguration
    let exporter: OTLPExporter
    let directory = TraceDirectory()
    private let resource: OTLPResource
    private let seed: UInt64
    /// Unix time of the run's monotonic zero, for the findings' spans.
    private let unixOffsetNanos: Int64

    /// Nil when no endpoint is set anywhere (no export, no cost).
    init?(flag: String?, scenario: Scenario, shard: String, shardIndex: Int,
          environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let configuration = Self.configuration(flag: flag, scenario: scenario, environment: environment)
        else { return nil }
        self.configuration = configuration
        resource = configuration.resource(scenario: scenario.name, seed: scenario.seed, shard: shard,
                                          version: Command.version)
        seed = scenario.seed
        unixOffsetNanos = Int64(bitPattern: OTLPExporter.unixNanos()) - Int64(bitPattern: HarnessSampler.monotonicNanos())
        exporter = OTLPExporter(configuration: configuration, resource: resource)
        self.shardIndex = shardIndex
    }

    private let shardIndex: Int

    /// The settings in force: `--otlp`, else `observability.otlp.endpoint`, else `OTEL_EXPORTER_OTLP_ENDPOINT`;
    /// the scenario's headers, then the environment's; the scenario's interval and share over the defaults; the
    /// mapping's `trace_header`. Nil when no endpoint is set anywhere.
    static func configuration(flag: String?, scenario: Scenario,
                              environment: [String: String]) -> OTLPConfiguration? {
        let spec = scenario.observability
        guard let endpoint = OTLPConfiguration.endpoint(flag: flag, scenario: spec.endpoint, environment: environment)
        else { return nil }
        var configuration = OTLPConfiguration(endpoint: endpoint,
                                              headers: spec.headers.map { (name: $0.name, value: $0.value) })
        configuration.apply(environment: environment)
        if let share = spec.traceShare { configuration.traceShare = share }
        if let interval = spec.intervalNanos { configuration.intervalNanos = interval }
        if let api = scenario.api { configuration.traceparentHeader = api.traceHeader }
        configuration.sipTraceHeader = spec.sipTraceHeader
        return configuration
    }

    /// Gives every worker a span buffer that hands ended calls to the exporter.
    func apply(to settings: inout DriverSettings) {
        let exporter = exporter
        let directory = directory
        let base = CallTraceBuffer.Settings(seed: seed, shard: shardIndex, worker: 0, share: configuration.traceShare,
                                            unixOffsetNanos: unixOffsetNanos)
        let (header, sipHeader) = (configuration.traceparentHeader, configuration.sipTraceHeader)
        settings.tracing.spans = { worker in
            var mine = base
            mine.worker = worker
            mine.traceparentHeader = header
            mine.sipTraceHeader = sipHeader
            return CallTraceBuffer(settings: mine, directory: directory) { exporter.enqueue($0) }
        }
    }

    /// Starts the periodic exports, reading the driver's live figures.
    func start(driver: LoadDriver) {
        exporter.start(figures: {
            let snapshot = driver.liveSnapshot
            return OTLPFigures(counters: snapshot.counters, histograms: snapshot.histograms)
        })
    }

    /// After the driver: the spans left are sent (waiting a few seconds at most), and what was lost is counted.
    func flush(into recorder: inout Recorder) {
        exporter.finish(final: nil, seconds: 5)
        let stats = exporter.snapshot
        let origin = recorder.runStartNanos
        recorder.count(.otlpDropped, by: exporter.dropped, atNanos: origin)
        recorder.count(.otlpSpansExported, by: stats.spansExported, atNanos: origin)
        recorder.count(.otlpExportsFailed, by: stats.requestsFailed, atNanos: origin)
    }

    /// After the report: the checker's findings on spans of their own (in the trace of the call each names) and the
    /// report's figures as the last metrics export, then the exporter closes.
    func finish(runDirectory: URL, recorder: Recorder) {
        exporter.enqueue(findingSpans(runDirectory.appendingPathComponent("checker.json")))
        let histograms = recorder.histograms.mapValues(\.sparse)
        exporter.finish(final: OTLPFigures(counters: recorder.counters, histograms: histograms), seconds: 5)
        exporter.close()
    }

    /// One span per checker violation, named `checker finding`, under the trace of the first conversation it
    /// names, with an event carrying the rule, the violation's number in checker.json (1-based) and its message;
    /// a call that was not exported gets its root span `call` from its stub, once.
    func findingSpans(_ checkerFile: URL) -> [OTLPSpan] {
        guard let data = try? Data(contentsOf: checkerFile),
              let report = try? JSONDecoder().decode(CheckReport.self, from: data) else { return [] }
        let findings = findings(report)
        var rooted: Set<TraceID> = []
        let roots = findings.compactMap { finding -> OTLPSpan? in
            guard rooted.insert(finding.traceID).inserted, let stub = directory.stub(of: finding.traceID) else {
                return nil
            }
            return OTLPSpan(traceID: finding.traceID, spanID: TraceIDs.span(finding.traceID, 0), name: "call",
                            startUnixNanos: stub.startUnixNanos, endUnixNanos: stub.endUnixNanos, attributes: [
                                OTLPAttribute("callstorm.flow", stub.flow),
                                OTLPAttribute("callstorm.sampled", .bool(false)),
                                OTLPAttribute("callstorm.conversation", stub.conversation),
                                OTLPAttribute("callstorm.exported_for", "checker finding")])
        }
        return roots + findings
    }

    private func findings(_ report: CheckReport) -> [OTLPSpan] {
        let now = OTLPExporter.unixNanos()
        return report.violations.enumerated().map { index, violation in
            let conversation = violation.conversations.first ?? ""
            let trace = directory.trace(of: conversation)
                ?? TraceIDs.trace(seed: seed, shard: shardIndex, worker: 0xffff, call: index)
            let attributes = [OTLPAttribute("callstorm.violation", Int64(index + 1)),
                              OTLPAttribute("callstorm.rule", violation.rule.rawValue),
                              OTLPAttribute("callstorm.conversation", conversation)]
            return OTLPSpan(traceID: trace, spanID: TraceIDs.span(trace, UInt64.max - UInt64(index)),
                            parentSpanID: TraceIDs.span(trace, 0), name: "checker finding", startUnixNanos: now,
                            endUnixNanos: now, attributes: attributes,
                            events: [OTLPSpan.Event(timeUnixNanos: now, name: "violation",
                                                    attributes: attributes + [OTLPAttribute("callstorm.message",
                                                                                            violation.message)])],
                            status: .error, statusMessage: violation.message)
        }
    }
}
