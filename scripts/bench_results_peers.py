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


def _gnu(path):
    """(CPU seconds, wall seconds) from a `/usr/bin/time -f '%U %S %M %e'` file; Nones when missing."""
    try:
        fields = open(path).read().strip().splitlines()[-1].split()
        return float(fields[0]) + float(fields[1]), (float(fields[3]) if len(fields) > 3 else None)
    except (OSError, ValueError, IndexError):
        return None, None


def switches(path):
    """Context switches, voluntary + involuntary, from the `%w %c` fields of a GNU time file: each voluntary one is
    a wake-up after the process slept (a thread hand-off, an epoll wait); None when the file has no such fields."""
    try:
        fields = open(path).read().strip().splitlines()[-1].split()
        return int(fields[4]) + int(fields[5])
    except (OSError, ValueError, IndexError):
        return None


def per_call(total, calls):
    return total / calls if total is not None and calls else None


def busy(work, name):
    """How busy the run kept the client core: CPU ÷ wall seconds of the whole process, in %."""
    cpu, wall = _gnu(os.path.join(work, name + ".time"))
    return round(100 * cpu / wall) if cpu and wall else None


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
    cpu, _ = _gnu(os.path.join(work, name + ".time"))
    return {"name": name, "planned_rate": rate, "planned": planned, "completed": completed, "lag_p99_ms": lag,
            "cpu_seconds": cpu, "delivered_per_s": completed / seconds, "busy_percent": busy(work, name),
            "per_cpu_s": completed / cpu if cpu else None,
            "switches_per_call": per_call(switches(os.path.join(work, name + ".time")), completed),
            "held": completed >= HELD_COMPLETED * planned and lag is not None and lag <= HELD_LAG_MS}


def _ms(value):
    return "not recorded" if value is None else f"{value:g} ms"


def verdict(run):
    if run is None:
        return "did not hold: the run left no counters"
    per_cpu = f"{run['per_cpu_s']:,.0f}" if run["per_cpu_s"] else "–"
    return (f"{'held' if run['held'] else 'did not hold'}: completed {run['completed']:,} of {run['planned']:,} "
            f"planned ({100 * run['completed'] / max(run['planned'], 1):.1f} %), scheduler lag p99 "
            f"{_ms(run['lag_p99_ms'])}, {per_cpu} calls/CPU-s"
            + (f", {run['switches_per_call']:.2f} context switches per call"
               if run.get("switches_per_call") is not None else ""))


def maximum(work, r, seconds, same):
    """The round's maximum: the highest planned rate of the ladder that held, else the same-rate run if it held."""
    names = sorted(glob.glob(os.path.join(work, f"cs-max-{r}-*.rate")))
    runs = [callstorm_run(work, os.path.basename(n)[:-5], seconds) for n in names]
    tried = [x for x in runs if x]
    held = [x for x in tried + ([same] if same else []) if x["held"]]
    best = max(held, key=lambda x: x["planned_rate"]) if held else None
    return best, tried


def peer(work, name, seconds, load_json):
    """A peer run's calls per CPU-second, delivered calls/s (completed ÷ its loop's seconds, else ÷ `seconds`), core
    busy % and JSON; None when it is missing."""
    j = load_json(os.path.join(work, name + ".json"))
    cpu, _ = _gnu(os.path.join(work, name + ".time"))
    if not j or not cpu or "completed" not in j:
        return None
    return {"per_cpu_s": j["completed"] / cpu, "delivered_per_s": j["completed"] / (j.get("loop_seconds") or seconds),
            "busy_percent": busy(work, name), "completed": j["completed"], "failed": j.get("failed"),
            "switches_per_call": per_call(switches(os.path.join(work, name + ".time")), j["completed"]),
            "client": j.get("client")}


def rounds_of(work, seconds, load_json):
    """Per round: (round, Locust, callstorm at Locust's rate, callstorm's maximum, the ladder tried, aiohttp)."""
    rounds = sorted(int(m.group(1)) for m in (re.match(r"locust-(\d+)\.time$", f) for f in os.listdir(work)) if m)
    out = []
    for r in rounds:
        same = callstorm_run(work, f"cs-same-{r}", seconds)
        best, tried = maximum(work, r, seconds, same)
        out.append((r, peer(work, f"locust-{r}", seconds, load_json), same, best, tried,
                    peer(work, f"aiohttp-{r}", seconds, load_json)))
    return out


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


COMMON = ("Calls = register → start → join → end sequences completed; CPU = user + system of the whole client "
          "process (GNU time, startup and registration included), on the client core (taskset -c 0); each run "
          "against a fresh standalone `callstorm target` on the server core (taskset -c 1). callstorm also receives "
          "every VoIP and background push through its gateway, answers and checks them, journals the run and writes "
          "every report, which the peers do not (while they run, the target's pushes go to a closed port).")


def _side(name, unit, runs, mmm, key="per_cpu_s", **more):
    values = [x[key] if x else None for x in runs]
    rates = [x["delivered_per_s"] if x else None for x in runs]
    median = _median(rates)
    return {"name": f"{name} ({'–' if median is None else f'{median:,.0f}'} calls/s delivered)", "unit": unit,
            **(mmm(values) or {}), "delivered_per_s": mmm(rates),
            "busy_percent": [x["busy_percent"] if x else None for x in runs], **more}


def _ratios(a, b):
    return [x["per_cpu_s"] / y["per_cpu_s"] if x and y and x["per_cpu_s"] and y["per_cpu_s"] else None
            for x, y in zip(a, b)]


def _busy(label, runs, closed=True):
    """How busy each round kept the client core; a closed-loop peer below 90 % was paced by the target."""
    text = f"{label}'s client core busy (CPU ÷ wall, per round): " + ", ".join(
        f"{x['busy_percent']} %" if x and x["busy_percent"] is not None else "–" for x in runs)
    if closed and any(x and x["busy_percent"] is not None and x["busy_percent"] < 90 for x in runs):
        text += f" (below 90 %: the target's answers, not {label}'s core, set its pace)"
    return text


def _switch_text(sides):
    """Context switches (wake-ups) per call of each side, per round: a thread hand-off or an epoll wait per event
    shows here before it shows in CPU seconds."""
    parts = [f"{label} " + ", ".join(f"{x['switches_per_call']:.2f}" if x and x.get("switches_per_call") is not None
                                     else "–" for x in runs) for label, runs in sides]
    return "Context switches per call, per round: " + "; ".join(parts) + "."


def peer_figures(work, figure, figures, load_json, mmm, seconds):
    """Adds the section's rows through bench-results.py's `figure` (skips to `figures`)."""
    rows = rounds_of(work, seconds, load_json)
    if not rows:
        skipped = load_json(os.path.join(work, "locust-skipped.json"))
        if skipped:
            figures.append({"id": "vs_locust", "skipped": skipped["skipped"]})
        return
    rounds, locust, same, best, tried, py = (list(column) for column in zip(*rows))
    locust_side = _side("Locust FastHttpUser, 50 users, as fast as the target answers", "calls/CPU-s", locust, mmm,
                        command="taskset -c 0 locust -f Benchmarks/locustfile.py --headless -u 50 -r 50 "
                                f"-t {seconds}s --host http://127.0.0.1:PORT --only-summary --calls-out OUT")
    run = (f"taskset -c 0 {BIN} run vs-locust.yaml --target http://127.0.0.1:PORT --workers 1 --duration {seconds}s "
           "--quiet (Benchmarks/scenarios/vs-locust.yaml with `rate: RATE/s`")
    figure("vs_locust", "calls per client CPU-second at the same delivered rate: callstorm at Locust's rate",
           _side("callstorm, planned at the rate Locust delivered", "calls/CPU-s", same, mmm,
                 command=run + f"; RATE = Locust's completed calls ÷ {seconds} s in the same round)"),
           locust_side, _ratios(same, locust), goal="≥ 1.5× Locust (issue 33)",
           meets=median_at_least(_ratios(same, locust), 1.5), extra={"runs": same},
           note=COMMON + " Each round: Locust, then callstorm planned at the rate Locust delivered. "
                + "; ".join(f"round {r}: {verdict(x)}" for r, x in zip(rounds, same)) + ". "
                + _busy("Locust", locust) + "; " + _busy("callstorm", same, closed=False) + ". "
                + _switch_text([("Locust", locust), ("callstorm", same)]))
    ladder = "; ".join(f"round {r}: " + (", ".join(
        f"{x['planned_rate']:,}/s {'held' if x['held'] else 'not held'} ({x['completed']:,} of {x['planned']:,}, "
        f"lag p99 {_ms(x['lag_p99_ms'])}, {x['per_cpu_s'] or 0:,.0f} calls/CPU-s)" for x in t) or "no run")
        + (f" → maximum {b['planned_rate']:,}/s ({b['name']})" if b else " → none held")
        for r, t, b in zip(rounds, tried, best))
    maximum_side = _side("callstorm at its maximum", "calls/CPU-s", best, mmm,
                         planned_rates=[b["planned_rate"] if b else None for b in best],
                         command=run + "; RATE: the ladder in the note)")
    figure("vs_locust_max", "calls per client CPU-second, each at its own maximum: callstorm vs Locust",
           maximum_side, locust_side, _ratios(best, locust),
           extra={"ladder": {str(r): t for r, t in zip(rounds, tried)}},
           note=COMMON + " callstorm is an open-model tool: it runs at the rate planned, so its maximum is the "
                "highest planned rate at which a run still held (completed ≥ 99 % of its planned calls, scheduler "
                f"lag p99 ≤ 10 ms), found each round by a ladder of {seconds} s runs: BENCH_MAX_RATE (2,000/s), then "
                "× 1.5 while a run held, at most three runs (the maximum may be higher when all three held), or "
                "once ÷ 1.5 when the first did not; the run at Locust's rate counts too. Locust runs 50 users as "
                "fast as the target answers, its maximum on one core only when its core is busy near 100 %. "
                + ladder + ". " + _busy("Locust", locust) + ".")
    if not any(py):
        skipped = load_json(os.path.join(work, "aiohttp-skipped.json"))
        if skipped:
            figures.append({"id": "vs_aiohttp", "skipped": skipped["skipped"]})
        return
    client = next((x["client"] for x in py if x and x.get("client")), "aiohttp")
    figure("vs_aiohttp", "calls per client CPU-second, each at its own maximum: callstorm vs an aiohttp loop",
           {**maximum_side, "command": "as in the row before"},
           _side("Python asyncio + aiohttp loop, 50 users, as fast as the target answers", "calls/CPU-s", py, mmm,
                 client=client, command="taskset -c 0 python3 Benchmarks/aiohttp_peer.py http://127.0.0.1:PORT 50 "
                                        f"{seconds} OUT"),
           _ratios(best, py), goal="≥ 1× the aiohttp loop (issue 33)", meets=median_at_least(_ratios(best, py), 1),
           note=COMMON + f" The second peer ({client}): 50 coroutines sharing one keep-alive pool of at most 50 "
                "connections, each registering its caller and callee, then looping start → join → end for "
                f"{seconds} s, the flow of Benchmarks/locustfile.py; it runs last in each round. Ratio: callstorm's "
                "maximum-rate figure ÷ the loop's, per round. " + _busy("aiohttp", py) + ".")


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
