#!/usr/bin/env bash
# `make bench`: runs the benchmark scenarios and writes Benchmarks/results/<date>.md and .json.
# Figures are measured on this machine in this run; compare ratios, not absolute numbers, across machines.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/callstorm
out=Benchmarks/results
work=Benchmarks/work
mkdir -p "$out" "$work"
date=$(date -u +%Y-%m-%d)

run() {  # run NAME SCENARIO: one callstorm run under GNU time, into $work/NAME
    rm -rf "$work/$1"
    /usr/bin/time -v -o "$work/$1.time" "$bin" run "$2" --out "$work/$1" --quiet > "$work/$1.log" 2>&1
}

run baseline Benchmarks/baseline.yaml
run scale Scenarios/scale.yaml

python3 - "$work" "$out" "$date" <<'PY'
import csv, json, os, platform, sys
work, out, date = sys.argv[1:4]

def peak_rss_kib(name):
    for line in open(os.path.join(work, name + ".time")):
        if "Maximum resident set size" in line:
            return int(line.split(":")[1])
    raise SystemExit("no RSS in " + name)

def summary(name):
    rows = {r["metric"]: r for r in csv.DictReader(open(os.path.join(work, name, "summary.csv")))}
    counters = {r["counter"]: int(r["value"]) for r in csv.DictReader(open(os.path.join(work, name, "counters.csv")))}
    return rows, counters

rows, counters = summary("scale")
devices, planned_rate, window = 10000, 500.0, 30.0
lag = rows["scheduler_lag"]
base_rss, scale_rss = peak_rss_kib("baseline"), peak_rss_kib("scale")
figures = {
    "date": date,
    "machine": f"{platform.node()} {platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} cores",
    "scenario": "Scenarios/scale.yaml (10,000 devices, 500 calls/s for 30 s, embedded target)",
    "calls_planned": counters.get("calls.planned", 0),
    "calls_started": counters.get("calls.started", 0),
    "calls_completed": counters.get("calls.completed", 0),
    "planned_rate_per_s": planned_rate,
    "delivered_rate_per_s": counters.get("calls.started", 0) / window,
    "harness_errors": sum(v for k, v in counters.items() if k.startswith("errors.")),
    "scheduler_lag_ms": {"p50": float(lag["p50"]), "p99": float(lag["p99"]), "max": float(lag["max"])},
    "push_to_report_ms": {k: float(rows["push_to_report"][k]) for k in ("p50", "p99", "max")},
    "peak_rss_mib": round(scale_rss / 1024, 1),
    "baseline_rss_mib": round(base_rss / 1024, 1),
    "rss_per_device_bytes": round((scale_rss - base_rss) * 1024 / devices),
}
json.dump(figures, open(os.path.join(out, date + ".json"), "w"), indent=2, sort_keys=True)
f = figures
md = f"""# callstorm benchmarks, {date}

Machine: {f['machine']}. Scenario: {f['scenario']}.

| figure | value |
|---|---|
| calls planned / started / completed | {f['calls_planned']} / {f['calls_started']} / {f['calls_completed']} |
| calls/s planned vs delivered | {f['planned_rate_per_s']:.0f} vs {f['delivered_rate_per_s']:.1f} |
| harness errors (errors.*) | {f['harness_errors']} |
| scheduler lag p50 / p99 / max | {f['scheduler_lag_ms']['p50']:.3f} / {f['scheduler_lag_ms']['p99']:.3f} / {f['scheduler_lag_ms']['max']:.3f} ms |
| push-to-report p50 / p99 / max | {f['push_to_report_ms']['p50']:.3f} / {f['push_to_report_ms']['p99']:.3f} / {f['push_to_report_ms']['max']:.3f} ms |
| peak RSS (scale run) | {f['peak_rss_mib']} MiB |
| peak RSS (4-device baseline) | {f['baseline_rss_mib']} MiB |
| RSS per device (scale − baseline) / 10,000 | {f['rss_per_device_bytes']} bytes |
"""
open(os.path.join(out, date + ".md"), "w").write(md)
print(md)
PY
