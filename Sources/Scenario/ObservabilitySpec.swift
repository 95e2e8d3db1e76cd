/// `observability:`: where the run's metrics and calls' traces go (OpenTelemetry, docs/OBSERVABILITY.md) and how
/// the trace context reaches the server. Every field is optional: what is unset falls back to `--otlp` and the
/// standard `OTEL_*` variables, then to the defaults (no export, 10 % of calls traced).
///
/// ```yaml
/// observability:
///   otlp: { endpoint: http://collector:4318, headers: { x-api-key: secret }, interval: 10s }
///   trace: { share: 10%, sip_header: Traceparent }
/// ```
public struct ObservabilitySpec: Sendable, Equatable {
    /// `otlp.endpoint`: the collector's base URL (`--otlp` overrides it; it overrides
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`).
    public var endpoint: String?
    /// `otlp.headers`, in file order; sent before those of `OTEL_EXPORTER_OTLP_HEADERS`.
    public var headers: [Header] = []
    /// `otlp.interval`: how often metrics are exported; nil keeps the default (10 s).
    public var intervalNanos: UInt64?
    /// `trace.share`: the share of calls traced whatever happens to them, 0...1; nil keeps the default (10 %).
    public var traceShare: Double?
    /// `trace.sip_header`: the SIP header a sampled call's requests carry its `traceparent` in; nil sends none.
    public var sipTraceHeader: String?

    /// One `name: value` header for the collector.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init() {}
}

extension ScenarioDecoder {
    static let observabilityKeys = ["otlp", "trace"]

    mutating func observability(_ node: YAMLNode) -> ObservabilitySpec? {
        guard let f = fields(of: node, in: "'observability'", known: Self.observabilityKeys) else { return nil }
        let errorsBefore = errors.count
        var spec = ObservabilitySpec()
        if let otlp = f["otlp"], let o = fields(of: otlp, in: "'observability.otlp'",
                                               known: ["endpoint", "headers", "interval"]) {
            if let n = o["endpoint"], let url = string(n, "observability.otlp.endpoint") {
                if url.hasPrefix("http://") || url.hasPrefix("https://") {
                    spec.endpoint = url
                } else {
                    report(n.mark, "'observability.otlp.endpoint' is the collector's base URL, like "
                        + "http://localhost:4318 (requests go to <endpoint>/v1/metrics and /v1/traces), got '\(url)'")
                }
            }
            if let n = o["headers"] { spec.headers = collectorHeaders(n) }
            if let n = o["interval"] { spec.intervalNanos = duration(n, "observability.otlp.interval") }
        }
        if let trace = f["trace"], let t = fields(of: trace, in: "'observability.trace'",
                                                 known: ["share", "sip_header"]) {
            if let n = t["share"] { spec.traceShare = fraction(n, "observability.trace.share") }
            if let n = t["sip_header"], let name = string(n, "observability.trace.sip_header") {
                spec.sipTraceHeader = headerName(n, name, "observability.trace.sip_header")
            }
        }
        return errors.count == errorsBefore ? spec : nil
    }

    /// `headers: { name: value, … }`, values as written (no percent-decoding: YAML can quote anything).
    private mutating func collectorHeaders(_ node: YAMLNode) -> [ObservabilitySpec.Header] {
        guard case .mapping(let pairs, _) = node else {
            report(node.mark, "expected a mapping of header names to values for 'observability.otlp.headers', "
                + "like { x-api-key: secret }, got \(node.kindDescription)")
            return []
        }
        return pairs.compactMap { pair in
            guard let key = pair.key.scalarText,
                  let name = headerName(pair.key, key, "observability.otlp.headers"),
                  let value = string(pair.value, "observability.otlp.headers.\(key)") else { return nil }
            return ObservabilitySpec.Header(name: name, value: value)
        }
    }

    /// A header name as HTTP and SIP spell one (an RFC 9110 token), or nil after saying why.
    mutating func headerName(_ node: YAMLNode, _ text: String, _ what: String) -> String? {
        let extra = Set("!#$%&'*+-.^_`|~")
        let valid = !text.isEmpty
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || extra.contains($0)) }
        guard valid else {
            report(node.mark, "'\(what)' needs a header name (letters, digits and -), like traceparent, got '\(text)'")
            return nil
        }
        return text
    }
}
