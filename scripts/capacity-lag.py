#!/usr/bin/env python3
"""Per second of a capacity run: calls planned, calls started, callstorm's scheduler lag p99 and push_to_report p99
(ms), from the run's timeseries.csv, then how many seconds had a lag p99 over the limit (issue 33's acceptance 4:
lag p99 <= 1 ms), by band of calls started.

usage: capacity-lag.py RUN_DIR_OR_TIMESERIES.csv [LIMIT_MS]     (LIMIT_MS defaults to 1)
       capacity-lag.py --summary RUN...                          one line per run: seconds over, worst, top rate

The lag is the Driver's scheduler_lag (planned -> actual start of each call, docs/REPORTS.md); a second with no
calls has no lag row and is not counted."""
import csv
import os
import sys

BANDS = [(0, 1000), (1000, 1500), (1500, 2000), (2000, 2500), (2500, 10 ** 9)]


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "timeseries.csv")
    seconds = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            second = seconds.setdefault(int(row["second"]), {})
            metric = row["metric"]
            if metric in ("scheduler_lag", "push_to_report"):
                second[metric] = float(row["p99"])
            elif metric in ("calls.planned", "calls.started"):
                second[metric] = int(float(row["value"]))
    return [(s, seconds[s]) for s in sorted(seconds) if "scheduler_lag" in seconds[s]]


def band_name(low, high):
    return f">= {low:,}" if high > 10 ** 8 else f"{low:,}-{high:,}"


def summarize(rows, limit):
    over = [(s, r) for s, r in rows if r["scheduler_lag"] > limit]
    worst = max((r["scheduler_lag"] for _, r in rows), default=0.0)
    top = max((r.get("calls.started", 0) for _, r in rows), default=0)
    bands = []
    for low, high in BANDS:
        inside = [r for _, r in rows if low <= r.get("calls.started", 0) < high]
        if inside:
            hits = sum(1 for r in inside if r["scheduler_lag"] > limit)
            bands.append(f"{band_name(low, high)}: {hits} of {len(inside)}")
    return len(over), len(rows), worst, top, bands


def detail(path, limit):
    rows = load(path)
    print(f"{'second':>6} {'planned':>8} {'started':>8} {'lag p99 ms':>10} {'p2r p99 ms':>10}")
    for second, r in rows:
        mark = "  *" if r["scheduler_lag"] > limit else ""
        print(f"{second:>6} {r.get('calls.planned', 0):>8} {r.get('calls.started', 0):>8} "
              f"{r['scheduler_lag']:>10.3f} {r.get('push_to_report', float('nan')):>10.3f}{mark}")
    over, total, worst, top, bands = summarize(rows, limit)
    print(f"seconds with lag p99 > {limit:g} ms: {over} of {total} (worst {worst:.2f} ms; top {top:,} calls started "
          f"a second)")
    print("by calls started that second: " + "; ".join(bands))


def main(argv):
    if len(argv) >= 2 and argv[0] == "--summary":
        for path in argv[1:]:
            over, total, worst, top, bands = summarize(load(path), 1.0)
            print(f"{path}: over 1 ms {over} of {total}, worst {worst:.2f} ms, top {top:,}/s; " + "; ".join(bands))
    elif len(argv) in (1, 2):
        detail(argv[0], float(argv[1]) if len(argv) == 2 else 1.0)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
