/// The two request bodies callstorm posts (OTLP/HTTP binary protobuf): one resource, one scope.
public enum OTLPRequest {
    /// ExportMetricsServiceRequest { resource_metrics 1 { resource 1, scope_metrics 2 { scope 1, metrics 2 } } }.
    public static func metrics(_ metrics: [OTLPMetric], resource: OTLPResource) -> [UInt8] {
        var w = ProtoWriter()
        w.message(1) { rm in
            rm.message(1) { resource.encodeResource(into: &$0) }
            rm.message(2) { sm in
                sm.message(1) { resource.encodeScope(into: &$0) }
                for metric in metrics {
                    sm.message(2) { metric.encode(into: &$0) }
                }
            }
        }
        return w.bytes
    }

    /// ExportTraceServiceRequest { resource_spans 1 { resource 1, scope_spans 2 { scope 1, spans 2 } } }.
    public static func traces(_ spans: [OTLPSpan], resource: OTLPResource) -> [UInt8] {
        var w = ProtoWriter()
        w.message(1) { rs in
            rs.message(1) { resource.encodeResource(into: &$0) }
            rs.message(2) { ss in
                ss.message(1) { resource.encodeScope(into: &$0) }
                for span in spans {
                    ss.message(2) { span.encode(into: &$0) }
                }
            }
        }
        return w.bytes
    }
}
