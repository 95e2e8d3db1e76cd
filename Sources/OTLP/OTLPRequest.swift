/// The two request bodies callstorm posts (OTLP/HTTP binary protobuf): one resource, one scope.
public enum OTLPRequest {
    /// ExportMetricsServiceRequest { resource_metrics 1 { resource 1, scope_metrics 2 { scope 1, metrics 2 } } }.
    public static func metrics(_ metrics: [OTLPMetric], resource: OTLPResource) -> [UInt8] {
        envelope(metrics, resource: resource) { metric, w in metric.encode(into: &w) }
    }

    /// ExportTraceServiceRequest { resource_spans 1 { resource 1, scope_spans 2 { scope 1, spans 2 } } }.
    public static func traces(_ spans: [OTLPSpan], resource: OTLPResource) -> [UInt8] {
        envelope(spans, resource: resource) { span, w in span.encode(into: &w) }
    }

    /// The shape both requests share, field for field: resource_X 1 { resource 1, scope_X 2 { scope 1, X 2 } }.
    private static func envelope<Item>(_ items: [Item], resource: OTLPResource,
                                       encode: (Item, inout ProtoWriter) -> Void) -> [UInt8] {
        var w = ProtoWriter()
        w.message(1) { outer in
            outer.message(1) { resource.encodeResource(into: &$0) }
            outer.message(2) { scoped in
                scoped.message(1) { resource.encodeScope(into: &$0) }
                for item in items {
                    scoped.message(2) { encode(item, &$0) }
                }
            }
        }
        return w.bytes
    }
}
