#!/usr/bin/env python3
"""The otlp section's figures (scripts/bench-otlp.sh's files in WORK/otlp), for bench-results.py: calls per client
CPU-second with OpenTelemetry traces at 10 % and at 100 % of calls, each against export off in the same round.

A run's figure is its completed calls (summary.json `calls.completed`) over its CPU seconds (GNU time, user +
system). The ratio is taken per round (variant ÷ off of that round) and the median over rounds is judged: the goal
is ≥ 0.95 at 10 % (less than 5 % cost, issue 38); 100 % has no goal.

Usage: bench_results_otlp.py one OUT NAME   one run's figures, a line
       bench_results_otlp.py summary OUT    every variant's figures and ratios, a few lines
"""
import glob
import json
import os
import statistics
import sys

VARIANTS = (("t10", "10 %", 0.95), ("t100", "100 %", None))


def run_figures(out, name):
    """(calls completed, CPU seconds, otlp.dropped) of one run; None where a file is missing."""
    try:
        counters = json.load(open(os.path.join(out, name, "summary.json")))["counters"]
    except (OSError, ValueError, KeyError):
        counters = None
    try:
        fields = open(os.path.join(out, name + ".time")).read().strip().splitlines()[-1].split()
        cpu = float(fields[0]) + float(fields[1])
    except (OSError, ValueError, IndexError):
        cpu = None
    if counters is None:
        return None, cpu, None
    return counters.get("calls.completed", 0), cpu, counters.get("otlp.dropped", 0)


def per_cpu_second(out, name):
    calls, cpu, _ = run_figures(out, name)
    return calls / cpu if calls is not None and cpu else None


def rounds(out):
    names = glob.glob(os.path.join(out, "off-*.time"))
    return sorted(int(os.path.basename(n)[4:-5]) for n in names)


def series(out):
    """{variant: [calls per CPU-second by round]} and {variant: [ratio to off by round]}, rounds with both."""
    values, ratios = {"off": []}, {}
    for r in rounds(out):
        off = per_cpu_second(out, f"off-{r}")
        if off is None:
            continue
        values["off"].append(off)
        for variant, _, _ in VARIANTS:
            v = per_cpu_second(out, f"{variant}-{r}")
            if v is not None:
                values.setdefault(variant, []).append(v)
                ratios.setdefault(variant, []).append(v / off)
    return values, ratios


def otlp_figures(work, figure, mmm):
    """One row per traced variant; nothing when the section did not run."""
    out = os.path.join(work, "otlp")
    if not os.path.isdir(out):
        return
    values, ratios = series(out)
    if not values["off"]:
        return
    command = "callstorm run Benchmarks/scenarios/vs-locust.yaml (+ observability) --target … --workers 1"
    for variant, label, goal in VARIANTS:
        if not ratios.get(variant):
            continue
        median = statistics.median(ratios[variant])
        figure(f"otlp_traces_{variant[1:]}", f"calls per client CPU-second, OTLP export with traces at {label}",
               {"name": f"callstorm, traces at {label}", "unit": "calls/CPU-s", **mmm(values[variant]),
                "command": command},
               {"name": "callstorm, export off", "unit": "calls/CPU-s", **mmm(values["off"]), "command": command},
               ratios[variant], goal=f"≥ {goal}" if goal else None,
               meets=(median >= goal) if goal else None,
               note="same planned rate each run, callstorm on the client core, target and an answering OTLP sink "
                    "on the server core (scripts/bench-otlp.sh)")


def main(argv):
    if len(argv) == 4 and argv[1] == "one":
        calls, cpu, dropped = run_figures(argv[2], argv[3])
        rate = f"{calls / cpu:.0f} calls/CPU-s" if calls is not None and cpu else "–"
        print(f"{calls} calls completed, {cpu} CPU-s, {rate}, otlp.dropped {dropped}")
        return 0
    if len(argv) == 3 and argv[1] == "summary":
        values, ratios = series(argv[2])
        for variant, vs in values.items():
            print(f"{variant}: calls per CPU-second by round {', '.join(f'{v:.0f}' for v in vs)}")
        for variant, label, goal in VARIANTS:
            if ratios.get(variant):
                median = statistics.median(ratios[variant])
                verdict = "" if goal is None else (" (goal met)" if median >= goal else " (goal missed)")
                print(f"traces at {label} vs off: ratio median {median:.3f}{verdict}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
