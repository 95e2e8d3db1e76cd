/// Where and how a run exports: the collector's base URL (`--otlp`, `observability.otlp.endpoint`, or
/// `OTEL_EXPORTER_OTLP_ENDPOINT`), headers (an API key: `observability.otlp.headers` or
/// `OTEL_EXPORTER_OTLP_HEADERS`), the metrics interval, the share of calls traced, and the resource
/// (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`).
public struct OTLPConfiguration: Sendable, Equatable {
    /// Base URL; requests go to `<endpoint>/v1/metrics` and `<endpoint>/v1/traces`.
    public var endpoint: String
    public var headers: [(name: String, value: String)]
    public var intervalNanos: UInt64 = 10_000_000_000
    public var timeoutMillis = 5_000
    /// Spans waiting to be sent, at most; past it a call's spans are dropped and counted (`otlp.dropped`).
    public var queueLimit = 20_000
    public var batchSize = 512
    /// Share of calls whose spans are exported whatever happens to them, 0...1 (failed and faulted calls always
    /// are). Default 10 %.
    public var traceShare = 0.1
    /// Whether devices' HTTP requests carry the call's `traceparent`, and under which header name.
    public var traceparentHeader: String? = "traceparent"
    /// The SIP header a sampled call's SIP requests carry its `traceparent` in (`observability.trace.sip_header`);
    /// nil, the default, sends none.
    public var sipTraceHeader: String?
    public var serviceName = "callstorm"
    /// From `OTEL_RESOURCE_ATTRIBUTES`, before callstorm's own (scenario, seed, shard, version).
    public var resourceAttributes: [(key: String, value: String)] = []

    public init(endpoint: String, headers: [(name: String, value: String)] = []) {
        self.endpoint = endpoint
        self.headers = headers
    }

    public static func == (a: OTLPConfiguration, b: OTLPConfiguration) -> Bool {
        a.endpoint == b.endpoint && a.headers.map { "\($0.name)=\($0.value)" } == b.headers.map { "\($0.name)=\($0.value)" }
            && a.intervalNanos == b.intervalNanos && a.traceShare == b.traceShare && a.serviceName == b.serviceName
            && a.traceparentHeader == b.traceparentHeader && a.sipTraceHeader == b.sipTraceHeader
            && a.resourceAttributes.map { "\($0.key)=\($0.value)" } == b.resourceAttributes.map { "\($0.key)=\($0.value)" }
    }

    public func url(_ path: String) -> String {
        var base = endpoint
        while base.hasSuffix("/") { base.removeLast() }
        return base + path
    }

    public var headerLines: [String] { headers.map { "\($0.name): \($0.value)" } }

    /// The resource every request names: service.name, the user's attributes, then the run's.
    public func resource(scenario: String, seed: UInt64, shard: String, version: String) -> OTLPResource {
        var attributes = [OTLPAttribute("service.name", serviceName)]
        for (key, value) in resourceAttributes where key != "service.name" {
            attributes.append(OTLPAttribute(key, value))
        }
        attributes += [OTLPAttribute("service.version", version), OTLPAttribute("callstorm.scenario", scenario),
                       OTLPAttribute("callstorm.seed", .int(Int64(bitPattern: seed))),
                       OTLPAttribute("callstorm.shard", shard)]
        return OTLPResource(attributes: attributes, scopeName: "callstorm", scopeVersion: version)
    }

    // MARK: - The standard environment variables

    /// Applies `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` (the endpoint
    /// variable is read by `endpoint(flag:scenario:environment:)`). Headers from the environment come after the
    /// scenario's, so both are sent.
    public mutating func apply(environment: [String: String]) {
        if let text = environment["OTEL_EXPORTER_OTLP_HEADERS"] {
            headers += Self.pairs(text).map { (name: $0.key, value: $0.value) }
        }
        if let name = environment["OTEL_SERVICE_NAME"], !name.isEmpty { serviceName = name }
        if let text = environment["OTEL_RESOURCE_ATTRIBUTES"] {
            resourceAttributes = Self.pairs(text)
            if environment["OTEL_SERVICE_NAME"] == nil,
               let name = resourceAttributes.first(where: { $0.key == "service.name" })?.value {
                serviceName = name
            }
        }
    }

    /// The endpoint in force: the flag, else the scenario's, else the environment's; nil exports nothing.
    public static func endpoint(flag: String?, scenario: String?, environment: [String: String]) -> String? {
        for candidate in [flag, scenario, environment["OTEL_EXPORTER_OTLP_ENDPOINT"]] {
            if let candidate, !candidate.isEmpty { return candidate }
        }
        return nil
    }

    /// `key1=value1,key2=value2` with percent-encoded values (W3C Baggage's format, which the OTel variables use).
    public static func pairs(_ text: String) -> [(key: String, value: String)] {
        text.split(separator: ",").compactMap { item -> (key: String, value: String)? in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return nil }
            let key = String(parts[0]).trimmingSpaces
            let value = percentDecoded(String(parts[1]).trimmingSpaces)
            return key.isEmpty ? nil : (key, value)
        }
    }

    static func percentDecoded(_ text: String) -> String {
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 37, i + 2 < bytes.count, let byte = UInt8(String(decoding: bytes[i + 1...i + 2], as: UTF8.self),
                                                                     radix: 16) {
                out.append(byte)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
