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
    # Exit 1 is failed thresholds (a busy machine): the figures are still measured and written below.
    /usr/bin/time -v -o "$work/$1.time" "$bin" run "$2" --out "$work/$1" --quiet > "$work/$1.log" 2>&1 \
        || [ $? -eq 1 ]
}

run baseline Benchmarks/baseline.yaml
run scale Scenarios/scale.yaml

# History checker speed: a synthetic correct history of 1,000,000 operations, read and checked (docs/CHECKER.md).
swift build -c release --product checker-bench > "$work/checker-bench.build.log" 2>&1
.build/release/checker-bench --out "$work/checker-bench.json" | tee "$work/checker-bench.log"

# Race scenarios against the correct reference target, long enough for > 10,000 conflicting pairs in all; a run
# with a violation exits 1, which the figures below report (so it must not stop the script).
race_seconds=${RACE_SECONDS:-45}
for scenario in Scenarios/races/*.yaml; do
    name=race-$(basename "$scenario" .yaml)
    rm -rf "$work/$name"
    "$bin" run "$scenario" --out "$work/$name" --duration "${race_seconds}s" --quiet > "$work/$name.log" 2>&1 || true
done

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
checker = json.load(open(os.path.join(work, "checker-bench.json")))
figures["checker_bench"] = checker
races = {}
for name in sorted(os.listdir(work)):
    path = os.path.join(work, name, "raw", "races.json")
    if name.startswith("race-") and os.path.isfile(path):
        r = json.load(open(path))
        races[name[5:]] = {"races": r["races"], "violations": sum(x["violations"] for x in r["rules"]),
                           "operations": r["operations"]}
figures["races"] = races
figures["races_total"] = sum(r["races"] for r in races.values())
figures["races_violations"] = sum(r["violations"] for r in races.values())
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
| history checker, {checker['operations']:,} ops (read + check) | {checker['totalSeconds']} s ({checker['readSeconds']} + {checker['checkSeconds']}), {checker['opsPerSecond']:,} ops/s, {checker['violations']} violations |
| race scenarios vs correct target: conflicting pairs / violations | {f['races_total']:,} / {f['races_violations']} |
"""
for name, r in races.items():
    md += f"| &nbsp;&nbsp;{name}: races / violations / operations | {r['races']:,} / {r['violations']} / {r['operations']:,} |\n"
open(os.path.join(out, date + ".md"), "w").write(md)
print(md)
PY
