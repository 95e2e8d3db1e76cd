import Metrics
import OTLP
import XCTest

/// callstorm's OTLP bytes against software we did not write: decoded by PyPI's opentelemetry-proto, and equal byte
/// for byte to what PyPI's OpenTelemetry SDK exporter encodes for the same values.
final class OTLPReferenceTests: XCTestCase {
    let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "callstorm"),
                                             OTLPAttribute("callstorm.seed", Int64(42))],
                                scopeName: "callstorm", scopeVersion: "1.2.3")

    func sampleSpans() -> [OTLPSpan] {
        let trace = TraceIDs.trace(seed: 42, shard: 0, worker: 1, call: 7)
        let root = TraceIDs.span(trace, 0)
        return [
            OTLPSpan(traceID: trace, spanID: root, name: "call incoming-1to1", startUnixNanos: 1_700_000_000_000_000_000,
                     endUnixNanos: 1_700_000_001_500_000_000, attributes: [OTLPAttribute("callstorm.call", Int64(7))]),
            OTLPSpan(traceID: trace, spanID: TraceIDs.span(trace, 1), parentSpanID: root, name: "join",
                     kind: .client, startUnixNanos: 1_700_000_000_200_000_000,
                     endUnixNanos: 1_700_000_000_450_000_000,
                     attributes: [OTLPAttribute("callstorm.outcome", "failed"),
                                  OTLPAttribute("callstorm.reason", "http_503"),
                                  OTLPAttribute("callstorm.race", .bool(true)),
                                  OTLPAttribute("callstorm.ratio", .double(0.25))],
                     events: [OTLPSpan.Event(timeUnixNanos: 1_700_000_000_300_000_000, name: "fault",
                                             attributes: [OTLPAttribute("callstorm.fault.kind", "device.offline")])],
                     status: .error, statusMessage: "http_503"),
        ]
    }

    func specJSON(_ span: OTLPSpan) -> [String: Any] {
        // Pairs, not an object: the order of attributes is part of the bytes.
        func attrs(_ list: [OTLPAttribute]) -> [[Any]] {
            list.map { a -> [Any] in
                switch a.value {
                case .string(let s): return [a.key, s]
                case .int(let i): return [a.key, i]
                case .bool(let b): return [a.key, b]
                case .double(let d): return [a.key, d]
                }
            }
        }
        return ["trace_id": span.traceID.hex, "span_id": span.spanID.hex,
                "parent_span_id": span.parentSpanID?.hex ?? "", "name": span.name, "kind": span.kind.rawValue,
                "start": span.startUnixNanos, "end": span.endUnixNanos, "attributes": attrs(span.attributes),
                "events": span.events.map { ["name": $0.name, "time": $0.timeUnixNanos,
                                             "attributes": attrs($0.attributes)] as [String: Any] },
                "status_code": span.status.rawValue, "status_message": span.statusMessage]
    }

    func testSpansEqualTheSDKExportersBytesAndDecodeWithTheReferenceProto() throws {
        try ReferenceCodec.require()
        let spans = sampleSpans()
        let ours = OTLPRequest.traces(spans, resource: resource)
        let sdk = try ReferenceCodec.sdkBytes("traces", spec: [
            "resource": [["service.name", "callstorm"], ["callstorm.seed", 42]], "scope": "callstorm",
            "scope_version": "1.2.3", "spans": spans.map(specJSON)])
        XCTAssertEqual(ours, sdk, "callstorm's span bytes differ from the SDK exporter's")

        let decoded = try ReferenceCodec.decode("traces", ours)
        let list = try XCTUnwrap(decoded["spans"] as? [[String: Any]])
        XCTAssertEqual(list.count, 2)
        XCTAssertEqual(list[1]["trace_id"] as? String, spans[0].traceID.hex)
        XCTAssertEqual(list[1]["parent_span_id"] as? String, spans[0].spanID.hex)
        XCTAssertEqual((list[1]["attributes"] as? [String: Any])?["callstorm.reason"] as? String, "http_503")
        XCTAssertEqual(((list[1]["events"] as? [[String: Any]])?.first)?["name"] as? String, "fault")
        XCTAssertEqual((list[1]["status"] as? [String: Any])?["code"] as? Int, 2)
    }

    func histogram() -> SparseHistogram {
        var h = HdrHistogram()
        for v: Int64 in [0, 850, 1_000, 1_024, 12_345, 12_400, 250_000, 1_999_999] { h.record(v) }
        h.record(40_000, count: 17)
        return h.sparse
    }

    func sampleMetrics() -> [OTLPMetric] {
        let start: UInt64 = 1_700_000_000_000_000_000
        let now: UInt64 = 1_700_000_010_000_000_000
        let point = ExponentialBuckets().point(histogram(), attributes: [OTLPAttribute("metric", "join.fulfillment")],
                                               startUnixNanos: start, timeUnixNanos: now)
        return [
            OTLPMetric(name: "callstorm.events", description: "counters", unit: "{event}", data: .sum([
                .init(attributes: [OTLPAttribute("counter", "calls.started")], startUnixNanos: start,
                      timeUnixNanos: now, value: 1234),
                .init(attributes: [OTLPAttribute("counter", "calls.failed")], startUnixNanos: start,
                      timeUnixNanos: now, value: 0),
            ], monotonic: true)),
            OTLPMetric(name: "callstorm.latency", unit: "s", data: .exponentialHistogram([point])),
        ]
    }

    func testCountersAndExponentialHistogramsEqualTheSDKExportersBytes() throws {
        try ReferenceCodec.require()
        let metrics = sampleMetrics()
        let ours = OTLPRequest.metrics(metrics, resource: resource)
        guard case .sum(let sums, _) = metrics[0].data, case .exponentialHistogram(let hs) = metrics[1].data else {
            return XCTFail("sample metrics changed shape")
        }
        let h = hs[0]
        let spec: [String: Any] = [
            "resource": [["service.name", "callstorm"], ["callstorm.seed", 42]], "scope": "callstorm",
            "scope_version": "1.2.3", "metrics": [
                ["name": "callstorm.events", "description": "counters", "unit": "{event}", "sum": [
                    "monotonic": true, "points": sums.map { ["attributes": [["counter", attributeText($0.attributes[0])]],
                                                             "start": $0.startUnixNanos, "time": $0.timeUnixNanos,
                                                             "value": $0.value] as [String: Any] }]],
                ["name": "callstorm.latency", "description": "", "unit": "s", "exponential_histogram": ["points": [[
                    "attributes": [["metric", "join.fulfillment"]], "start": h.startUnixNanos, "time": h.timeUnixNanos,
                    "count": h.count, "sum": h.sum, "scale": h.scale, "zero_count": h.zeroCount, "offset": h.offset,
                    "bucket_counts": h.bucketCounts, "min": h.min, "max": h.max] as [String: Any]]]],
            ] as [[String: Any]]]
        let sdk = try ReferenceCodec.sdkBytes("metrics", spec: spec)
        XCTAssertEqual(ours, sdk, "callstorm's metric bytes differ from the SDK exporter's")

        let decoded = try ReferenceCodec.decode("metrics", ours)
        let list = try XCTUnwrap(decoded["metrics"] as? [[String: Any]])
        let sum = try XCTUnwrap(list[0]["sum"] as? [String: Any])
        XCTAssertEqual(sum["temporality"] as? Int, 2)
        XCTAssertEqual(sum["monotonic"] as? Bool, true)
        XCTAssertEqual((sum["points"] as? [[String: Any]])?.map { $0["value"] as? Int }, [1234, 0])
        let point = try XCTUnwrap(((list[1]["exponential_histogram"] as? [String: Any])?["points"]
            as? [[String: Any]])?.first)
        XCTAssertEqual(point["count"] as? Int, 25)
        XCTAssertEqual(point["zero_count"] as? Int, 1)
        XCTAssertEqual((point["bucket_counts"] as? [Int])?.reduce(0, +), 24)
        XCTAssertEqual(point["max"] as? Double, 1.999999)
    }

    private func attributeText(_ a: OTLPAttribute) -> String {
        if case .string(let s) = a.value { return s }
        return ""
    }
}
