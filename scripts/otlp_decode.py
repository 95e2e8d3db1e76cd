"""Decodes OTLP/HTTP protobuf bodies with PyPI's opentelemetry-proto (the reference definitions, code we did not
write) into plain JSON, and encodes the same values with PyPI's OpenTelemetry SDK exporter encoders, so callstorm's
hand-written encoder is checked against both (Tests/OTLPTests, scripts/otlp-receiver.py).

Usage: otlp_decode.py decode traces|metrics FILE        print the decoded request as JSON
       otlp_decode.py sdk traces|metrics SPEC.json OUT   write what the SDK encodes for SPEC (the test's values)
"""

import json
import sys


def _value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def _attributes(key_values):
    return {kv.key: _value(kv.value) for kv in key_values}


def decode_traces(body):
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    out = {"resources": [], "spans": []}
    for rs in request.resource_spans:
        out["resources"].append(_attributes(rs.resource.attributes))
        for ss in rs.scope_spans:
            for s in ss.spans:
                out["spans"].append({
                    "scope": ss.scope.name, "trace_id": s.trace_id.hex(), "span_id": s.span_id.hex(),
                    "parent_span_id": s.parent_span_id.hex(), "name": s.name, "kind": s.kind,
                    "start": s.start_time_unix_nano, "end": s.end_time_unix_nano,
                    "attributes": _attributes(s.attributes), "flags": s.flags,
                    "events": [{"name": e.name, "time": e.time_unix_nano, "attributes": _attributes(e.attributes)}
                               for e in s.events],
                    "status": {"code": s.status.code, "message": s.status.message},
                })
    return out


def _histogram_point(p):
    return {"attributes": _attributes(p.attributes), "start": p.start_time_unix_nano, "time": p.time_unix_nano,
            "count": p.count, "sum": p.sum, "scale": p.scale, "zero_count": p.zero_count,
            "offset": p.positive.offset, "bucket_counts": list(p.positive.bucket_counts), "min": p.min, "max": p.max}


def decode_metrics(body):
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
    request = ExportMetricsServiceRequest()
    request.ParseFromString(body)
    out = {"resources": [], "metrics": []}
    for rm in request.resource_metrics:
        out["resources"].append(_attributes(rm.resource.attributes))
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                entry = {"scope": sm.scope.name, "name": m.name, "unit": m.unit, "description": m.description}
                kind = m.WhichOneof("data")
                if kind == "sum":
                    entry["sum"] = {"temporality": m.sum.aggregation_temporality, "monotonic": m.sum.is_monotonic,
                                    "points": [{"attributes": _attributes(p.attributes), "value": p.as_int,
                                                "start": p.start_time_unix_nano, "time": p.time_unix_nano}
                                               for p in m.sum.data_points]}
                elif kind == "exponential_histogram":
                    entry["exponential_histogram"] = {
                        "temporality": m.exponential_histogram.aggregation_temporality,
                        "points": [_histogram_point(p) for p in m.exponential_histogram.data_points]}
                else:
                    entry["other"] = kind
                out["metrics"].append(entry)
    return out


def _pairs(attributes):
    """Attributes as the test sends them: [[key, value], ...], in order (the order is part of the bytes)."""
    return {key: value for key, value in attributes}


def _resource_and_scope(spec):
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    return Resource(_pairs(spec["resource"])), InstrumentationScope(spec["scope"], spec.get("scope_version") or None)


def sdk_traces(spec):
    """SPEC: {resource: [[k, v]...], scope, spans: [{trace_id, span_id, parent_span_id?, name, kind, start, end,
    attributes, events: [{name, time, attributes}], status_code, status_message}]}"""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import Event, ReadableSpan
    from opentelemetry.trace import SpanContext, SpanKind, TraceFlags
    from opentelemetry.trace.status import Status, StatusCode
    resource, scope = _resource_and_scope(spec)
    kinds = {1: SpanKind.INTERNAL, 2: SpanKind.SERVER, 3: SpanKind.CLIENT}
    codes = {0: StatusCode.UNSET, 1: StatusCode.OK, 2: StatusCode.ERROR}
    spans = []
    for s in spec["spans"]:
        trace_id = int(s["trace_id"], 16)
        context = SpanContext(trace_id, int(s["span_id"], 16), is_remote=False, trace_flags=TraceFlags(1))
        parent = None
        if s.get("parent_span_id"):
            parent = SpanContext(trace_id, int(s["parent_span_id"], 16), is_remote=False, trace_flags=TraceFlags(1))
        code = codes[s["status_code"]]
        status = Status(code, s["status_message"] if code == StatusCode.ERROR else None)
        spans.append(ReadableSpan(
            name=s["name"], context=context, parent=parent, resource=resource, attributes=_pairs(s["attributes"]),
            events=[Event(e["name"], _pairs(e["attributes"]), e["time"]) for e in s["events"]], kind=kinds[s["kind"]],
            status=status, start_time=s["start"], end_time=s["end"], instrumentation_scope=scope))
    return encode_spans(spans).SerializeToString()


def sdk_metrics(spec):
    """SPEC: {resource, scope, metrics: [{name, description, unit, sum: {monotonic, points: [...]}} or
    {..., exponential_histogram: {points: [...]}}]}, points as decode_metrics prints them."""
    from opentelemetry.exporter.otlp.proto.common.metrics_encoder import encode_metrics
    from opentelemetry.sdk.metrics.export import (AggregationTemporality, ExponentialHistogram,
                                                  ExponentialHistogramDataPoint, Metric, MetricsData,
                                                  NumberDataPoint, ResourceMetrics, ScopeMetrics, Sum)
    from opentelemetry.sdk.metrics._internal.point import Buckets
    resource, scope = _resource_and_scope(spec)
    metrics = []
    for m in spec["metrics"]:
        if "sum" in m:
            data = Sum([NumberDataPoint(_pairs(p["attributes"]), p["start"], p["time"], p["value"]) for p in m["sum"]["points"]],
                       AggregationTemporality.CUMULATIVE, m["sum"]["monotonic"])
        else:
            data = ExponentialHistogram([ExponentialHistogramDataPoint(
                _pairs(p["attributes"]), p["start"], p["time"], p["count"], p["sum"], p["scale"], p["zero_count"],
                Buckets(p["offset"], p["bucket_counts"]), Buckets(0, []), 0, p["min"], p["max"])
                for p in m["exponential_histogram"]["points"]], AggregationTemporality.CUMULATIVE)
        metrics.append(Metric(m["name"], m.get("description", ""), m.get("unit", ""), data))
    data = MetricsData([ResourceMetrics(resource, [ScopeMetrics(scope, metrics, "")], "")])
    return encode_metrics(data).SerializeToString()


def main(argv):
    if len(argv) >= 4 and argv[1] == "decode":
        body = open(argv[3], "rb").read()
        decoded = decode_traces(body) if argv[2] == "traces" else decode_metrics(body)
        json.dump(decoded, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    if len(argv) >= 5 and argv[1] == "sdk":
        spec = json.load(open(argv[3]))
        body = sdk_traces(spec) if argv[2] == "traces" else sdk_metrics(spec)
        open(argv[4], "wb").write(body)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
