#!/usr/bin/env python3
"""The Locust section's rows (scripts/bench-peers.sh's files), for bench-results.py, and the verdict bench-peers.sh
asks after each callstorm run (`bench_results_peers.py held WORK NAME SECONDS`).

Calls per client CPU-second, whole client process (startup, registration, end-of-run reports included), every
client on the client core against a fresh `callstorm target` on the server core. Three rows, ratios per round:
callstorm at the rate Locust delivered vs Locust; callstorm at its own maximum vs Locust (flat out); the same
callstorm maximum vs a Python asyncio + aiohttp loop of the same flow. An open-model run "held" when it completed
≥ 99 % of its planned calls with scheduler lag p99 ≤ 10 ms: a run past that is not one callstorm kept up with."""
import csv
import glob
import json
import os
import re
import statistics
import sys

BIN = "callstorm"
HELD_COMPLETED, HELD_LAG_MS = 0.99, 10.0


def _gnu_cpu(path):
    try:
        user, system = open(path).read().strip().splitlines()[-1].split()[:2]
        return float(user) + float(system)
    except (OSError, ValueError, IndexError):
        return None


def callstorm_run(work, name, seconds):
    """What one callstorm run of bench-peers.sh did; None when it left no counters."""
    path = os.path.join(work, name, "counters.csv")
    if not os.path.exists(path):
        return None
    counters = {row["counter"]: int(row["value"]) for row in csv.DictReader(open(path))}
    summary = {row["metric"]: row for row in csv.DictReader(open(os.path.join(work, name, "summary.csv")))}
    rate = int(open(os.path.join(work, name + ".rate")).read())
    # Planned: the plan's own count (arrivals made, and those a stop abandoned), never less than rate × window.
    planned = max(rate * seconds, counters.get("calls.planned", 0) + counters.get("calls.not_started_at_stop", 0))
    completed = counters.get("calls.completed", 0)
    lag = summary.get("scheduler_lag", {}).get("p99")
    lag = float(lag) if lag else None
    cpu = _gnu_cpu(os.path.join(work, name + ".time"))
    return {"name": name, "planned_rate": rate, "planned": planned, "completed": completed, "lag_p99_ms": lag,
            "cpu_seconds": cpu, "delivered_per_s": completed / seconds,
            "per_cpu_s": completed / cpu if cpu else None,
            "held": completed >= HELD_COMPLETED * planned and lag is not None and lag <= HELD_LAG_MS}


def _ms(value):
    return "not recorded" if value is None else f"{value:g} ms"


def verdict(run):
    if run is None:
        return "did not hold: the run left no counters"
    per_cpu = f"{run['per_cpu_s']:,.0f}" if run["per_cpu_s"] else "–"
    return (f"{'held' if run['held'] else 'did not hold'}: completed {run['completed']:,} of {run['planned']:,} "
            f"planned ({100 * run['completed'] / max(run['planned'], 1):.1f} %), scheduler lag p99 "
            f"{_ms(run['lag_p99_ms'])}, {per_cpu} calls/CPU-s")


def maximum(work, r, seconds, same):
    """The round's maximum: the highest planned rate of the ladder that held, else the same-rate run if it held."""
    names = sorted(glob.glob(os.path.join(work, f"cs-max-{r}-*.rate")))
    runs = [callstorm_run(work, os.path.basename(n)[:-5], seconds) for n in names]
    tried = [x for x in runs if x]
    held = [x for x in tried + ([same] if same else []) if x["held"]]
    best = max(held, key=lambda x: x["planned_rate"]) if held else None
    return best, tried


def peer(work, name, gnu_time):
    """(calls per CPU-second, delivered calls/s, the JSON) of a peer run; Nones when it is missing."""
    j, seconds = _load(os.path.join(work, name + ".json")), None
    cpu, _ = gnu_time(os.path.join(work, name + ".time"))
    if not j or not cpu or "completed" not in j:
        return None, None, j
    seconds = j.get("loop_seconds") or j.get("seconds")
    return j["completed"] / cpu, (j["completed"] / seconds if seconds else None), j


def _load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def _ratio(a, b):
    return a / b if a is not None and b else None


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _ladder_text(rounds_tried):
    parts = []
    for r, tried in rounds_tried:
        steps = ", ".join(f"{x['planned_rate']:,}/s {'held' if x['held'] else 'not held'} "
                          f"({x['completed']:,}/{x['planned']:,}, lag p99 {_ms(x['lag_p99_ms'])})" for x in tried)
        parts.append(f"round {r}: {steps or 'no run'}")
    return "; ".join(parts)


def peer_figures(work, figure, figures, load_json, mmm, gnu_time, seconds):
    rounds = sorted(int(m.group(1)) for m in (re.match(r"locust-(\d+)\.time$", f) for f in os.listdir(work)) if m)
    if not rounds:
        skipped = load_json(os.path.join(work, "locust-skipped.json"))
        if skipped:
            figures.append({"id": "vs_locust", "skipped": skipped["skipped"]})
        return
    lc, lc_rate, same, best, tried_all, py, py_rate, py_client = [], [], [], [], [], [], [], None
    for r in rounds:
        lcpu, lrate, _ = peer(work, f"locust-{r}", gnu_time)
        lc.append(lcpu)
        lr = _load(os.path.join(work, f"locust-{r}.json"))
        lc_rate.append(lr["completed"] / seconds if lr and "completed" in lr else None)
        s = callstorm_run(work, f"cs-same-{r}", seconds)
        same.append(s)
        b, tried = maximum(work, r, seconds, s)
        best.append(b)
        tried_all.append((r, tried))
        pcpu, prate, pj = peer(work, f"aiohttp-{r}", gnu_time)
        py.append(pcpu)
        py_rate.append(prate)
        py_client = (pj or {}).get("client", py_client)
    one = lambda runs, key: [x[key] if x else None for x in runs]
    rate_text = lambda values: f"{_median(values):,.0f}" if _median(values) is not None else "–"
    locust_side = {"name": f"Locust FastHttpUser, 50 users, flat out ({rate_text(lc_rate)} calls/s delivered)",
                   "unit": "calls/CPU-s", **(mmm(lc) or {}), "delivered_per_s": mmm(lc_rate),
                   "command": "taskset -c 0 locust -f Benchmarks/locustfile.py --headless -u 50 -r 50 "
                              f"-t {seconds}s --host http://127.0.0.1:PORT --calls-out locust-R.json"}
    common = ("Calls = register → start → join → end sequences completed; CPU = user + system of the whole "
              "client process (GNU time, startup and registration included), on the client core (taskset -c 0); each "
              "run against a fresh standalone `callstorm target` on the server core (taskset -c 1). callstorm "
              "also receives every VoIP and background push through its gateway, answers and checks them, "
              "journals the run and writes every report, which the peers do not (while they run, the target's "
              "pushes go to a closed port).")
    scenario = (f"{BIN} run vs-locust.yaml (Benchmarks/scenarios/vs-locust.yaml, rate: RATE/s) --target "
                f"http://127.0.0.1:PORT --workers 1 --duration {seconds}s --quiet")
    same_ratios = [_ratio(a, b) for a, b in zip(one(same, "per_cpu_s"), lc)]
    figure("vs_locust", "calls per client CPU-second at the same delivered rate: callstorm at Locust's rate",
           {"name": f"callstorm, planned at Locust's delivered rate ({rate_text(one(same, 'delivered_per_s'))} "
                    "calls/s delivered)", "unit": "calls/CPU-s", **(mmm(one(same, "per_cpu_s")) or {}),
            "delivered_per_s": mmm(one(same, "delivered_per_s")),
            "command": f"taskset -c 0 {scenario} (RATE = Locust's completed calls ÷ {seconds} s, this round)"},
           locust_side, same_ratios,
           goal="≥ 4× Locust (issue 20)", meets=median_at_least(same_ratios, 4),
           extra={"runs": same},
           note=common + " Each round: Locust first, then callstorm planned at the rate Locust delivered in it. "
                + "; ".join(f"round {r}: {verdict(s)}" for r, s in zip(rounds, same)) + ".")
    max_ratios = [_ratio(a, b) for a, b in zip(one(best, "per_cpu_s"), lc)]
    figure("vs_locust_max", "calls per client CPU-second, each at its own maximum: callstorm vs Locust",
           {"name": f"callstorm at its maximum ({rate_text(one(best, 'delivered_per_s'))} calls/s delivered)",
            "unit": "calls/CPU-s", **(mmm(one(best, "per_cpu_s")) or {}),
            "delivered_per_s": mmm(one(best, "delivered_per_s")), "planned_rates": one(best, "planned_rate"),
            "command": f"taskset -c 0 {scenario} (RATE: the ladder in the note)"},
           locust_side, max_ratios, goal="≥ 4× Locust (issue 20)", meets=median_at_least(max_ratios, 4),
           extra={"ladder": {str(r): t for r, t in tried_all}},
           note=common + " callstorm is an open-model tool: it runs at the rate planned, so its maximum is the "
                "highest planned rate at which a run still held (completed ≥ 99 % of its planned calls, scheduler "
                f"lag p99 ≤ 10 ms), found each round by a ladder of {seconds} s runs: BENCH_MAX_RATE (2,000/s), then "
                "× 1.5 while a run held, at most three runs (the maximum may be higher when all three held); once "
                "÷ 1.5 when the first did not. Ladder: " + _ladder_text(tried_all) + ".")
    if not any(py) and os.path.exists(os.path.join(work, "aiohttp-skipped.json")):
        skipped = load_json(os.path.join(work, "aiohttp-skipped.json"))["skipped"]
        figures.append({"id": "vs_aiohttp", "skipped": skipped})
        return
    figure("vs_aiohttp", "calls per client CPU-second, each at its own maximum: callstorm vs an aiohttp loop",
           {"name": f"callstorm at its maximum ({rate_text(one(best, 'delivered_per_s'))} calls/s delivered)",
            "unit": "calls/CPU-s", **(mmm(one(best, "per_cpu_s")) or {}),
            "command": "as in the row before"},
           {"name": f"Python asyncio + aiohttp, 50 users, flat out ({rate_text(py_rate)} calls/s delivered)",
            "unit": "calls/CPU-s", **(mmm(py) or {}), "delivered_per_s": mmm(py_rate), "client": py_client,
            "command": f"taskset -c 0 python3 Benchmarks/aiohttp_peer.py http://127.0.0.1:PORT 50 {seconds} OUT"},
           [_ratio(a, b) for a, b in zip(one(best, "per_cpu_s"), py)],
           note=common + f" The second peer ({py_client or 'aiohttp'}): 50 coroutines sharing one keep-alive pool of "
                "at most 50 connections, each registering its caller and callee, then looping start → join → end "
                f"for {seconds} s, the same flow as Benchmarks/locustfile.py; it ran last in each round.")


def median_at_least(values, bar):
    """Whether the median of the values that exist is ≥ bar; None when none does."""
    m = _median(values)
    return m >= bar if m is not None else None


if __name__ == "__main__" and sys.argv[1:2] == ["held"]:
    _, _, work_dir, run_name, window = sys.argv
    print(verdict(callstorm_run(work_dir, run_name, int(window))))
elif __name__ == "__main__" and sys.argv[1:2] == ["rate"]:
    # A peer's delivered rate, whole calls/s (at least 1): its completed calls ÷ its run time.
    print(max(1, round(json.load(open(sys.argv[2]))["completed"] / float(sys.argv[3]))))
