#!/usr/bin/env python3
"""Judges a soak run from its raw/recorder-harness.json: RSS growth after warm-up, fd and thread drift.

usage: soak-judge.py RUN_DIR OUT.md [--warmup SECONDS] [--exit-code N]
Exit 0 when every check holds, 1 otherwise, 2 when the run directory has no harness samples.
"""
import argparse, json, os, platform, sys

p = argparse.ArgumentParser()
p.add_argument("run")
p.add_argument("out")
p.add_argument("--warmup", type=int, default=300)
p.add_argument("--exit-code", type=int, default=None, help="callstorm run's exit code, recorded in the file")
p.add_argument("--rss-growth", type=float, default=0.05)
p.add_argument("--fd-band", type=int, default=8, help="allowed max - min of fds after warm-up")
p.add_argument("--thread-band", type=int, default=4)
a = p.parse_args()

def pairs(flat):
    # Swift's JSONEncoder writes a dictionary with Int keys as a flat array [second, value, second, value, ...].
    if isinstance(flat, dict):
        return [(int(k), float(v)) for k, v in flat.items()]
    return [(int(flat[i]), float(flat[i + 1])) for i in range(0, len(flat) - 1, 2)]

def load(stem):
    """One recorder's snapshot plus the segments it counts (see RecorderCheckpointer): returns its recorder
    dicts, the snapshot's first, so series can be gathered across them."""
    raw = os.path.join(a.run, "raw")
    snap = json.load(open(os.path.join(raw, stem + ".json")))
    if "recorder" not in snap:
        return [snap]
    parts, count = [snap["recorder"]], snap.get("segments", 0)
    seg_path = os.path.join(raw, stem + ".segments.jsonl")
    if count and os.path.exists(seg_path):
        for line in open(seg_path):
            if not line.endswith("\n"):
                break
            seg = json.loads(line)
            if seg["segment"] > count:
                break
            parts.append(seg["recorder"])
    return parts

def gather(parts, kind, name):
    out = {}
    for rec in parts:
        for t, v in pairs(rec.get(kind, {}).get(name, [])):
            out[t] = out.get(t, 0) + v if kind == "counterSeries" else v
    return sorted(out.items())

try:
    harness = load("recorder-harness")
except (OSError, ValueError) as e:
    print(f"no harness samples in {a.run}/raw/recorder-harness.json: {e}", file=sys.stderr)
    sys.exit(2)

def series(name):
    return gather(harness, "gauges", name)

def last_arrival_second(run):
    # The drain after the last arrival closes connections; only the steady load is judged.
    last = None
    for name in os.listdir(os.path.join(run, "raw")):
        if not (name.startswith("recorder-w") and name.endswith(".json")):
            continue
        seconds = [t for t, _ in gather(load(name[:-5]), "counterSeries", "calls.started")]
        if seconds:
            last = max(seconds + ([last] if last is not None else []))
    return last

end = last_arrival_second(a.run)
clip = lambda s: [(t, v) for t, v in s if end is None or t <= end]
rss, fds, threads = clip(series("harness.rss_mib")), clip(series("harness.fds")), clip(series("harness.threads"))
if not rss:
    print("no harness.rss_mib samples", file=sys.stderr)
    sys.exit(2)
first, last = rss[0][0], rss[-1][0]
warm = first + a.warmup
after = lambda s: [v for t, v in s if t >= warm]
rss_after, fds_after, threads_after = after(rss), after(fds), after(threads)
checks = []
if len(rss_after) < 60:
    checks.append(("run long enough", False, f"only {len(rss_after)} s of samples after a {a.warmup} s warm-up"))
else:
    # Median of the first and last minute after warm-up, so one sample's noise decides nothing.
    med = lambda xs: sorted(xs)[len(xs) // 2]
    start, end = med(rss_after[:60]), med(rss_after[-60:])
    growth = (end - start) / start
    checks.append(("RSS growth after warm-up < %.0f %%" % (a.rss_growth * 100), growth < a.rss_growth,
                   f"{start:.1f} MiB → {end:.1f} MiB ({growth * 100:+.2f} %), peak {max(rss_after):.1f} MiB"))
# A load generator's connection count moves with the load (timeouts close and reopen connections), so "flat"
# means no upward trend: the last minute's median may exceed the first minute's (after warm-up) by at most
# max(band, 10 %).
for name, xs, band in (("fds", fds_after, a.fd_band), ("threads", threads_after, a.thread_band)):
    if len(xs) < 60:
        checks.append((f"{name} flat", False, "fewer than 60 samples after warm-up"))
        continue
    med = lambda v: sorted(v)[len(v) // 2]
    start, end = med(xs[:60]), med(xs[-60:])
    allowed = max(band, 0.10 * start)
    checks.append((f"{name} flat (last-minute median ≤ first + max({band}, 10 %))", end - start <= allowed,
                   f"median {start:.0f} → {end:.0f}; min {min(xs):.0f}, max {max(xs):.0f}"))

summary = {}
try:
    summary = json.load(open(os.path.join(a.run, "summary.json")))
except (OSError, ValueError):
    pass
c = summary.get("counters", {})
passed = all(ok for _, ok, _ in checks)
lines = [
    f"# Soak {os.path.basename(a.run.rstrip('/'))}",
    "",
    f"Machine: {platform.node()} {platform.system()} {platform.release()} {platform.machine()}, {os.cpu_count()} cores.",
    f"Samples: {len(rss)} s of harness gauges (seconds {first}–{last}, up to the last arrival), "
    f"warm-up {a.warmup} s excluded.",
    f"callstorm run exit code: {a.exit_code}" if a.exit_code is not None else "",
    f"Calls started {c.get('calls.started', 0)}, completed {c.get('calls.completed', 0)}, "
    f"failed {c.get('calls.failed', 0)}; pushes delivered {c.get('pushes.delivered', 0)}.",
    "",
    "| check | result | figures |",
    "|---|---|---|",
]
lines += [f"| {name} | {'pass' if ok else 'FAIL'} | {fig} |" for name, ok, fig in checks]
lines += ["", f"Verdict: {'PASS' if passed else 'FAIL'}", ""]
lines += ["RSS (MiB) once a minute:", "", "```"]
lines += [f"{t - first:5d} s  {v:7.1f} MiB" for t, v in rss if (t - first) % 60 == 0]
lines += ["```", ""]
os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
open(a.out, "w").write("\n".join(l for l in lines if l is not None) + "\n")
for name, ok, fig in checks:
    print(f"{'pass' if ok else 'FAIL'}: {name}: {fig}")
print(f"figures: {a.out}")
sys.exit(0 if passed else 1)
