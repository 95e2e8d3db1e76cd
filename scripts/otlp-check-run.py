#!/usr/bin/env python3
"""Checks what scripts/otlp-receiver.py received from one `callstorm run --otlp` against the run's own files.

Prints one JSON object: the problems found (empty when every check holds) and the figures the test asserts on.
  - the last metrics export's counters equal summary.json's counters exactly (both ways);
  - each exponential histogram's count equals summary.json's count for that metric, and its p50/p99 (the upper
    bound of the bucket holding the rank) is within one HdrHistogram slot plus one bucket of summary.json's;
  - every exported trace has one root span `call`, and every other span is a child of it.

Usage: otlp-check-run.py RUN_DIR RECEIVED.jsonl
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


def main(argv):
    run, received = argv[1], argv[2]
    summary = json.load(open(f"{run}/summary.json"))
    lines = [json.loads(line) for line in open(received)]
    metrics = [r for r in lines if r["kind"] == "metrics"]
    traces = [r for r in lines if r["kind"] == "traces"]
    problems = []
    out = {"metrics_requests": len(metrics), "trace_requests": len(traces)}
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
    out["spans"] = len(spans)
    out["span_names"] = sorted({s["name"] for s in spans})
    out["fault_events"] = sum(1 for s in spans for e in s["events"] if e["name"] == "fault")
    out["problems"] = problems
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
