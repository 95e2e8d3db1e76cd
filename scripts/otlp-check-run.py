#!/usr/bin/env python3
"""Checks what scripts/otlp-receiver.py received from one `callstorm run --otlp` against the run's own files.

Prints one JSON object: the problems found (empty when every check holds) and the figures the test asserts on.
  - the last metrics export's counters equal summary.json's counters exactly (both ways);
  - each exponential histogram's count equals summary.json's count for that metric, and its p50/p99 (the upper
    bound of the bucket holding the rank) is within one HdrHistogram slot plus one bucket of summary.json's;
  - every exported trace has one root span `call`, and every other span is a child of it;
  - with TRACEPARENTS (the reference target's `--traceparent-log`, every call sampled): every request the devices
    sent for a call (a POST under /v1/conversations) carried a `traceparent` whose trace id is an exported call's
    and whose span id is one of that trace's spans, and every exported call was seen by the target;
  - when the run wrote checker.json: one `checker finding` span per violation, numbered 1… as checker.json lists
    them, with its rule and first conversation, in the trace of an exported call that ran that conversation.

Usage: otlp-check-run.py RUN_DIR RECEIVED.jsonl [TRACEPARENTS]
"""

import json
import math
import sys


def percentile(point, p):
    rank = math.ceil(p / 100 * point["count"])
    seen = point["zero_count"]
    if seen >= rank:
        return 0.0
    base = 2 ** (2 ** -point["scale"])
    for i, c in enumerate(point["bucket_counts"]):
        seen += c
        if seen >= rank:
            return base ** (point["offset"] + i + 1)
    return point["max"]


def join_traceparents(path, by_trace, problems):
    """The target's log against the exported traces; returns how many call requests carried a traceparent."""
    seen, carried = set(), 0
    for line in open(path):
        method, request_path, value = line.split()
        if method != "POST" or not request_path.startswith("/v1/conversations"):
            continue
        parts = value.split("-")
        if value == "-" or len(parts) != 4 or parts[0] != "00" or parts[3] != "01":
            problems.append(f"{method} {request_path} reached the target with traceparent {value!r}")
            continue
        carried += 1
        trace_id, span_id = parts[1], parts[2]
        spans = by_trace.get(trace_id)
        if not spans or not any(s["name"] == "call" for s in spans):
            problems.append(f"{method} {request_path}: trace {trace_id} was not exported as a call")
        elif span_id not in {s["span_id"] for s in spans}:
            problems.append(f"{method} {request_path}: span {span_id} is not a span of trace {trace_id}")
        seen.add(trace_id)
    for trace_id, spans in by_trace.items():
        if any(s["name"] == "call" for s in spans) and trace_id not in seen:
            problems.append(f"call trace {trace_id} was exported but no request of it reached the target")
    return carried


def check_findings(run, spans, by_trace, problems):
    """checker.json's violations against the finding spans; returns (findings, findings on a call's trace)."""
    try:
        violations = json.load(open(f"{run}/checker.json")).get("violations", [])
    except FileNotFoundError:
        return None
    findings = [s for s in spans if s["name"] == "checker finding"]
    numbers = sorted(s["attributes"].get("callstorm.violation") for s in findings)
    if numbers != list(range(1, len(violations) + 1)):
        problems.append(f"finding spans number {numbers}, checker.json has {len(violations)} violations")
    linked = 0
    for s in findings:
        number = s["attributes"].get("callstorm.violation")
        if not isinstance(number, int) or not 1 <= number <= len(violations):
            continue
        violation = violations[number - 1]
        if s["attributes"].get("callstorm.rule") != violation["rule"]:
            problems.append(f"finding {number}: rule {s['attributes'].get('callstorm.rule')}, "
                            f"checker.json {violation['rule']}")
        first = (violation.get("conversations") or [""])[0]
        if s["attributes"].get("callstorm.conversation") != first:
            problems.append(f"finding {number}: conversation {s['attributes'].get('callstorm.conversation')}, "
                            f"checker.json {first}")
        if any(m["name"] == "call" for m in by_trace.get(s["trace_id"], [])):
            linked += 1
    return {"findings": len(findings), "findings_on_call_traces": linked, "violations": len(violations)}


def main(argv):
    run, received = argv[1], argv[2]
    summary = json.load(open(f"{run}/summary.json"))
    lines = [json.loads(line) for line in open(received)]
    metrics = [r for r in lines if r["kind"] == "metrics"]
    traces = [r for r in lines if r["kind"] == "traces"]
    problems = []
    out = {"metrics_requests": len(metrics), "trace_requests": len(traces),
           "api_keys": sorted({r.get("headers", {}).get("x-api-key", "") for r in lines})}
    if not metrics:
        problems.append("no metrics request received")
    else:
        last = {m["name"]: m for m in metrics[-1]["metrics"]}
        counters = {p["attributes"]["counter"]: p["value"] for p in last["callstorm.events"]["sum"]["points"]}
        for name, value in summary["counters"].items():
            if counters.get(name) != value:
                problems.append(f"counter {name}: exported {counters.get(name)}, summary.json {value}")
        for name in set(counters) - set(summary["counters"]):
            problems.append(f"counter {name} exported but not in summary.json")
        out["counters"] = len(counters)
        histograms = {p["attributes"]["metric"]: p
                      for p in last.get("callstorm.latency", {}).get("exponential_histogram", {}).get("points", [])}
        for name, stats in summary["metrics"].items():
            point = histograms.get(name)
            if point is None:
                problems.append(f"histogram {name} not exported")
                continue
            if point["count"] != stats["count"]:
                problems.append(f"histogram {name}: count {point['count']}, summary.json {stats['count']}")
            error = 1 / 1024 + (2 ** (2 ** -point["scale"]) - 1)
            for p, key in ((50, "p50"), (99, "p99")):
                want = stats[key] / 1000  # summary.json: milliseconds; OTLP: seconds
                got = percentile(point, p)
                if stats["count"] and abs(got - want) > want * error + 1e-6:
                    problems.append(f"histogram {name} {key}: {got} s exported, {want} s in summary.json")
        out["histograms"] = len(histograms)
    spans = [s for r in traces for s in r["spans"]]
    by_trace = {}
    for s in spans:
        by_trace.setdefault(s["trace_id"], []).append(s)
    calls = 0
    for trace_id, members in by_trace.items():
        roots = [s for s in members if s["name"] == "call"]
        if not roots:
            if all(s["name"] == "checker finding" for s in members):
                continue
            problems.append(f"trace {trace_id} has no call span")
            continue
        calls += 1
        if len(roots) != 1:
            problems.append(f"trace {trace_id} has {len(roots)} call spans")
        for s in members:
            if s is not roots[0] and s["parent_span_id"] != roots[0]["span_id"]:
                problems.append(f"span {s['name']} of {trace_id} is not a child of its call span")
    out["traced_calls"] = calls
    if len(argv) > 3:
        out["traceparent_requests"] = join_traceparents(argv[3], by_trace, problems)
    out["spans"] = len(spans)
    out["span_names"] = sorted({s["name"] for s in spans})
    pushes = [s for s in spans if s["name"] == "push"]
    out["push_spans"] = len(pushes)
    out["push_spans_reported"] = sum(1 for s in pushes if [e["name"] for e in s["events"]] == ["delivered", "reported"])
    out["fault_events"] = sum(1 for s in spans for e in s["events"] if e["name"] == "fault")
    findings = check_findings(run, spans, by_trace, problems)
    if findings is not None:
        out.update(findings)
    out["problems"] = problems
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
