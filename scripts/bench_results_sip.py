#!/usr/bin/env python3
"""The SIP section's figures (scripts/bench-sip.sh's files in WORK/sip): callstorm's SIP devices vs SIPp (a UAC and
a UAS instance) on the same call with a hold through one Kamailio, and callstorm's push wake-up path.

Calls per client CPU-second: completed calls ÷ the user + system seconds of the client processes only (GNU time):
SIPp's UAC, UAS and its one registration run; callstorm's whole process (start-up, every device's REGISTER with
its digest challenge, the run's reports). Kamailio's CPU is not counted for either.

A rung "held" when the client kept its own timing at the planned rate:
  - SIPp: ≥ 99 % of the planned calls (rate × seconds, its -m) successful and ≤ 1 % failed (its stat file's
    SuccessfulCall / FailedCall), and its call starts on pace: each call's INVITE time (from -trace_rtt: the
    "setup" response time's stamp minus the response time, in SIPp's 4 ms clock steps) against its planned time
    (anchor + i / rate, the anchor where the earliest call stood against that pace), the lateness p99 ≤ 10 ms. Its
    achieved call rate ((calls − 1) ÷ first-to-last start) is shown.
  - callstorm: ≥ 99 % of the planned calls completed and scheduler lag (planned → actual start) p99 ≤ 10 ms, as in
    the Locust section (bench_results_peers.callstorm_run).
The held rate is the highest rung that held. Both sides' INVITE → 200 time at the caller (p99) is reported beside it:
it includes the callee's 100 ms answer delay and Kamailio, so it is the same for both while Kamailio keeps up.

usage: bench_results_sip.py held-sipp DIR SECONDS | held-callstorm OUTDIR NAME SECONDS | held-rate OUTDIR SECONDS
       | report WORK RESULTS DATE (writes RESULTS/sip-DATE.md and .json)"""
import csv
import glob
import json
import os
import statistics
import sys

from bench_results_peers import callstorm_run, per_call as _per_call, switches as _switches, \
    verdict as callstorm_verdict
from bench_results_sip_limit import ceilings, limit, limit_text, server_side

HELD_COMPLETED, HELD_LAG_MS = 0.99, 10.0
TITLE_CPU = ("SIP calls per client CPU-second at the highest rate both held: callstorm vs SIPp (UAC + UAS), the same "
             "call with a hold through one Kamailio")
TITLE_RATE = "SIP held call rate (highest rung with the client's own timing intact): callstorm vs SIPp"
TITLE_WAKE = ("SIP push wake-up path (SIPp cannot run it): callstorm at its held rate, calls per client CPU-second vs "
              "the same call without push")


def _cpu(path):
    """User + system seconds from a `/usr/bin/time -f '%U %S %M %e'` file (its last line); None when missing."""
    try:
        fields = open(path).read().strip().splitlines()[-1].split()
        return float(fields[0]) + float(fields[1])
    except (OSError, ValueError, IndexError):
        return None


def _percentile(values, q):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(round(q * len(values) + 0.5)) - 1))]


def _last_stat(path):
    """The last row of a SIPp -trace_stat file (';'-separated, cumulative columns end in '(C)')."""
    try:
        rows = list(csv.DictReader(open(path), delimiter=";"))
    except OSError:
        return {}
    return rows[-1] if rows else {}


def sipp_run(d, seconds):
    """What one SIPp rung did (files of bench-sip.sh's sipp_run); None when it left no UAC stat file."""
    try:
        rate = int(open(os.path.join(d, "rate")).read())
    except (OSError, ValueError):
        return None
    stat = _last_stat(os.path.join(d, "uac-stat.csv"))
    if not stat:
        return None
    planned = rate * seconds
    successful = int(stat.get("SuccessfulCall(C)", 0))
    failed = int(stat.get("FailedCall(C)", 0))
    setups, starts = [], []
    for path in glob.glob(os.path.join(d, "*_rtt.csv")):
        for row in csv.DictReader(open(path), delimiter=";"):
            if row.get("rtd_no") == "setup":
                at, took = float(row["Date_ms"]), float(row["response_time_ms"])
                setups.append(took)
                starts.append(at - took)
    # SIPp paces calls from its own start, which its files do not give: the schedule is anchored where the
    # earliest call stood against it (no call starts before its planned time), and each call's lateness is how much
    # later than that it came.
    starts.sort()
    offsets = [at - i * 1000.0 / rate for i, at in enumerate(starts)]
    late = [x - min(offsets) for x in offsets]
    achieved = (len(starts) - 1) * 1000.0 / (starts[-1] - starts[0]) if len(starts) > 1 and starts[-1] > starts[0] \
        else None
    cpu = [_cpu(os.path.join(d, f"{part}.time")) for part in ("uac", "uas", "reg")]
    total = sum(c for c in cpu if c is not None) if cpu[0] is not None and cpu[1] is not None else None
    lag = _percentile(late, 0.99)
    switches = [_switches(os.path.join(d, f"{part}.time")) for part in ("uac", "uas", "reg")]
    return {"switches_per_call": _per_call(sum(switches) if None not in switches else None, successful),
            "planned_rate": rate, "planned": planned, "completed": successful, "failed": failed,
            "retransmissions": int(stat.get("Retransmissions(C)", 0)), "cpu_seconds": total,
            "cpu_uac": cpu[0], "cpu_uas": cpu[1], "per_cpu_s": successful / total if total else None,
            "start_lag_p99_ms": lag, "achieved_rate": achieved, "setup_p99_ms": _percentile(setups, 0.99),
            "held": successful >= HELD_COMPLETED * planned and failed <= (1 - HELD_COMPLETED) * planned
            and lag is not None and lag <= HELD_LAG_MS}


def sipp_verdict(run):
    if run is None:
        return "did not hold: SIPp left no statistics"
    per_cpu = f"{run['per_cpu_s']:,.0f}" if run["per_cpu_s"] else "–"
    lag = "not recorded" if run["start_lag_p99_ms"] is None else f"{run['start_lag_p99_ms']:.0f} ms"
    rate = "–" if run["achieved_rate"] is None else f"{run['achieved_rate']:,.1f}/s"
    return (f"{'held' if run['held'] else 'did not hold'}: {run['completed']:,} of {run['planned']:,} planned "
            f"successful ({100 * run['completed'] / max(run['planned'], 1):.1f} %), {run['failed']:,} failed, call "
            f"starts late p99 {lag}, achieved {rate}, {run['retransmissions']:,} retransmissions, "
            f"{per_cpu} calls/CPU-s")


def _summary(outdir, name):
    path = os.path.join(outdir, name, "summary.csv")
    return {row["metric"]: row for row in csv.DictReader(open(path))} if os.path.exists(path) else {}


def _p99(summary, metric):
    value = summary.get(metric, {}).get("p99")
    return float(value) if value else None


def _counter(outdir, name, counter):
    path = os.path.join(outdir, name, "counters.csv")
    if not os.path.exists(path):
        return 0
    return next((int(row["value"]) for row in csv.DictReader(open(path)) if row["counter"] == counter), 0)


def cs_run(outdir, name, seconds):
    """A callstorm run of bench-sip.sh with its SIP figures; None when it left no counters."""
    run = callstorm_run(outdir, name, seconds)
    if run is None:
        return None
    summary = _summary(outdir, name)
    run["setup_p99_ms"] = _p99(summary, "sip.setup")
    for metric in ("push_to_report", "invite_to_push", "push_to_register", "register_to_invite", "register"):
        run[metric + "_p99_ms"] = _p99(summary, metric)
    # Calls that found every device busy (bench_results_sip_limit: a slow server keeps devices busy longer).
    run["dropped_no_idle"] = _counter(outdir, name, "calls.dropped.no_idle_device")
    run["server"] = server_side(outdir, name)
    run["limit"] = limit(run, run["server"])[0]
    # Calls per Kamailio CPU-second (all its processes, start-up registrations included): what its one core carries.
    run["kamailio_per_cpu_s"] = ceilings(run, run["server"])[1]
    return run


def ladder(outdir, seconds):
    """[(rate, SIPp run, callstorm run)] by rate, for the rungs the ladder reached."""
    rates = sorted({int(p.split("-")[-1]) for p in glob.glob(os.path.join(outdir, "sipp-*"))}
                   | {int(os.path.basename(p)[3:-5]) for p in glob.glob(os.path.join(outdir, "cs-*.rate"))})
    return [(r, sipp_run(os.path.join(outdir, f"sipp-{r}"), seconds), cs_run(outdir, f"cs-{r}", seconds))
            for r in rates]


def held_rate(rows, side):
    rates = [r for r, *runs in rows if runs[side] and runs[side]["held"]]
    return max(rates) if rates else None


def wake_run(outdir, seconds):
    names = sorted(glob.glob(os.path.join(outdir, "wake-*.rate")))
    return cs_run(outdir, os.path.basename(names[-1])[:-5], seconds) if names else None


def first_tries(outdir):
    """The rungs a side lost at its first try and ran again (bench-sip.sh's SIP_TRIES), as a sentence; "" for none."""
    try:
        lines = [x.strip() for x in open(os.path.join(outdir, "first-tries", "verdicts")) if x.strip()]
    except OSError:
        return ""
    return (" Rungs run twice (a side that loses a rung runs it once more at once; the second try is the one "
            "counted, its first try kept in sip/first-tries/): " + "; ".join(lines) + ".") if lines else ""


def _one(v):
    return {"min": v, "median": v, "max": v, "n": 1} if v is not None else {}


def _rung_text(r, sipp, cs):
    return (f"{r:,}/s — SIPp: {sipp_verdict(sipp)}; callstorm: {callstorm_verdict(cs)}"
            + (f", INVITE→200 p99 {cs['setup_p99_ms']:g} ms" if cs and cs.get("setup_p99_ms") is not None else "")
            + (f" (SIPp's {sipp['setup_p99_ms']:g} ms)" if sipp and sipp.get("setup_p99_ms") is not None else "")
            + _switch_text(sipp, cs)
            + (f"; callstorm's run: {limit_text(cs, cs.get('server')).rstrip('.')}" if cs else ""))


def _switch_text(sipp, cs):
    """Context switches (wake-ups) per call of each side, where both GNU time files recorded them."""
    a = sipp.get("switches_per_call") if sipp else None
    b = cs.get("switches_per_call") if cs else None
    if a is None and b is None:
        return ""
    fmt = lambda x: "–" if x is None else f"{x:.2f}"  # noqa: E731
    return f", context switches per call: callstorm {fmt(b)}, SIPp {fmt(a)}"


def sip_figures(work, figure):
    """Adds the section's three rows through bench-results.py's `figure`; nothing when the section did not run."""
    outdir = os.path.join(work, "sip")
    try:
        seconds = int(open(os.path.join(outdir, "seconds")).read())
    except (OSError, ValueError):
        return
    rows = ladder(outdir, seconds)
    if not rows:
        return
    ran = [(r, s, c) for r, s, c in rows if s and c and s["per_cpu_s"] and c["per_cpu_s"]]
    both = [(r, s, c) for r, s, c in ran if s["held"] and c["held"]]
    # With no rung both held (a loaded machine), the highest rung both ran, said so: a row of dashes tells nothing.
    compared = both or ran
    ratios = [c["per_cpu_s"] / s["per_cpu_s"] for _, s, c in compared]
    top = compared[-1] if compared else None
    where = "at the highest rung both held" if both else "NO rung held by both: at the highest rung both ran"
    ladder_text = "; ".join(_rung_text(*row) for row in rows)
    common = ("One Kamailio 5.6 (deploy/kamailio/kamailio.cfg, TLSF for its memory: -x tlsf -X tlsf) on the server "
              "core for the whole section; every client on the client core. CPU = user + system of the client processes only: SIPp's UAC, UAS and its one "
              "REGISTER run; callstorm's whole process (start-up, 3 devices per call/s each REGISTERing with digest, "
              "its gateway, the reports). ")
    run_cmd = ("taskset -c 0 callstorm run sip-hold.yaml --workers 1 --quiet (Benchmarks/scenarios/sip-hold.yaml with "
               "the bench's registrar, `rate: RATE/s, for: SECONDS`, devices 3 × RATE)")
    sipp_cmd = ("taskset -c 0 sipp -sf deploy/sipp/uas-hold.xml -p UAS_PORT -m N, and taskset -c 0 sipp -sf "
                "deploy/sipp/uac-hold.xml -s sipp-uas KAMAILIO -r RATE -m N -trace_rtt -trace_stat, after "
                "uas-hold-register.xml registered UAS_PORT")
    figure("sip_per_cpu", TITLE_CPU,
           {"name": "callstorm SIP devices, both ends", "unit": "calls/CPU-s",
            **_one(top[2]["per_cpu_s"] if top else None), "rate": top[0] if top else None, "command": run_cmd},
           {"name": f"SIPp 3.6.1 UAC + UAS{f' at {top[0]:,} calls/s' if top else ''}", "unit": "calls/CPU-s",
            **_one(top[1]["per_cpu_s"] if top else None), "command": sipp_cmd},
           [ratios[-1]] if ratios else None, goal="≥ 1× SIPp per client CPU-second (issue 33)",
           meets=(ratios[-1] >= 1) if ratios else None,
           extra={"ladder": [{"rate": r, "sipp": s, "callstorm": c} for r, s, c in rows], "both_held": bool(both),
                  "ratios_by_rate": {str(r): x for (r, _, _), x in zip(compared, ratios)}},
           note=common + f"Ratio {where}; per rung: "
                + (", ".join(f"{r:,}/s {x:.3g}" for (r, _, _), x in zip(compared, ratios)) or "none") + ". Rungs: "
                + ladder_text + ".")
    cs_held, sipp_held = held_rate(rows, 1), held_rate(rows, 0)
    figure("sip_held_rate", TITLE_RATE,
           {"name": "callstorm SIP devices", "unit": "calls/s", **_one(cs_held), "command": run_cmd},
           {"name": "SIPp 3.6.1 UAC + UAS", "unit": "calls/s", **_one(sipp_held), "command": sipp_cmd},
           [cs_held / sipp_held] if cs_held and sipp_held else None,
           goal="≥ SIPp's held rate (issue 33)", meets=(cs_held >= sipp_held) if cs_held and sipp_held else None,
           note=common + f"Rungs {', '.join(f'{r:,}' for r, *_ in rows)} calls/s, {seconds} s each (SIP_RATES, "
                "SIP_SECONDS); a side runs no rung above one it did not hold, and one that held the top rung may "
                "hold more; a rung halfway between a side's highest held rung and the one it lost is run last "
                "(SIP_REFINE), for that side only unless both share it. Held: see scripts/bench_results_sip.py "
                "(≥ 99 % of planned calls completed, ≤ 1 % failed, call starts late p99 ≤ 10 ms by SIPp's "
                "-trace_rtt stamps or callstorm's scheduler lag)." + first_tries(outdir))
    wake = wake_run(outdir, seconds)
    if wake:
        same = next((c for r, _, c in rows if c and r == wake["planned_rate"]), None)
        figure("sip_wake", TITLE_WAKE,
               {"name": "callstorm, devices asleep, woken by VoIP push", "unit": "calls/CPU-s",
                **_one(wake["per_cpu_s"]), "rate": wake["planned_rate"], "run": wake,
                "command": run_cmd.replace("sip-hold.yaml", "sip-hold-wake.yaml")},
               {"name": "callstorm, devices awake (no push), same rate", "unit": "calls/CPU-s",
                **_one(same["per_cpu_s"] if same else None)},
               [wake["per_cpu_s"] / same["per_cpu_s"]] if same and same["per_cpu_s"] and wake["per_cpu_s"] else None,
               goal="held at SIPp's held rate (issue 33)", meets=wake["held"],
               extra={"limit": dict(zip(("who", "why"), limit(wake, wake.get("server"))),
                                    callstorm_calls_per_cpu_s=wake["per_cpu_s"],
                                    kamailio_calls_per_cpu_s=wake["kamailio_per_cpu_s"])},
               note=f"{callstorm_verdict(wake)}. " + limit_text(wake, wake.get("server")) + " " + common
                    + f"p99: push_to_report {wake['push_to_report_p99_ms']} ms, "
                    f"invite_to_push {wake['invite_to_push_p99_ms']} ms, push_to_register "
                    f"{wake['push_to_register_p99_ms']} ms, register_to_invite {wake['register_to_invite_p99_ms']} ms, "
                    f"INVITE→200 {wake['setup_p99_ms']} ms. Both devices sleep: the caller wakes when its user "
                    "dials (REGISTER, then INVITE); Kamailio parks the INVITE, pushes to the run's gateway, and "
                    "delivers it on the callee's wake REGISTER; the push goes from Kamailio's task workers (the async "
                    "module), not from the SIP worker that parks the INVITE." + _wake_server(outdir)
                    + first_tries(outdir))
        wake_switch_figure(figure, wake, same, next((s for r, s, _ in rows if s and r == wake["planned_rate"]), None))


def _wake_server(outdir):
    """The wake rung's own Kamailio (bench-sip.sh's WAKE_KAMAILIO_PROCS), as a sentence; "" on the ladder's."""
    try:
        cmd = open(os.path.join(outdir, "kamailio-wake.cmd")).read().split()
    except OSError:
        return ""
    procs = [a for i, a in enumerate(cmd) if a == "-n" or (i and cmd[i - 1] == "-n") or a.startswith("PUSH_WORKERS=")
             or (a == "-A" and i + 1 < len(cmd) and cmd[i + 1].startswith("PUSH_WORKERS="))]
    return (" The wake rung ran on a Kamailio of its own on the same server core, the same configuration, memory "
            f"and allocator, sized for the push path ({' '.join(procs)}; the ladder's, SIPp's comparison: -n 1 -A "
            "PUSH_WORKERS=2): the server is this path's target, not the peer being compared.")


def wake_switch_figure(figure, wake, same, sipp):
    """Context switches per call on the wake-up path (issue 33, "fewer thread hand-offs"): every one is a thread
    that slept and was woken (or preempted), from GNU time's voluntary + involuntary counts of the whole process.
    Beside it the awake call at the same rate; SIPp's plain call at that rung is in the note."""
    if wake.get("switches_per_call") is None:
        return
    awake = same.get("switches_per_call") if same else None
    figure("sip_wake_switches", "SIP push wake-up path: context switches (wake-ups) per call, callstorm's process",
           {"name": "callstorm, devices asleep, woken by VoIP push", "unit": "switches/call",
            **_one(wake["switches_per_call"]), "rate": wake["planned_rate"]},
           {"name": "callstorm, devices awake (no push), same rate", "unit": "switches/call", **_one(awake)},
           [wake["switches_per_call"] / awake] if awake else None,
           note=f"GNU time's %w + %c of the run (taskset on the client core: every hand-off between callstorm's "
                f"threads, the push gateway's loop to the worker's, is a switch there). SIPp UAC + UAS on the plain "
                f"call at {wake['planned_rate']:,}/s: "
                + ("–" if not sipp or sipp.get("switches_per_call") is None else f"{sipp['switches_per_call']:.2f}")
                + " per call. Per call completed; a loop that runs late batches more, so fewer switches at a "
                "higher rate.")


def instruction_figure(work, figure):
    """The load-independent row (scripts/bench-sip-instructions.sh's JSON): instructions per call, both sides."""
    try:
        j = json.load(open(os.path.join(work, "sip-instructions.json")))
        sipp, cs = j["sipp"]["per_call"], j["callstorm"]["per_call"]
    except (OSError, ValueError, KeyError):
        return
    if not sipp or not cs:
        return
    figure("sip_instructions", "SIP: instructions per call under callgrind (the hold call, both ends, client only)",
           {"name": "callstorm SIP devices", "unit": "instructions/call", **_one(cs), "calls": j["callstorm"]["calls"],
            "command": "scripts/bench-sip-instructions.sh (callstorm run sip-hold.yaml under valgrind --tool=callgrind)"},
           {"name": "SIPp 3.6.1 UAC + UAS", "unit": "instructions/call", **_one(sipp), "calls": j["sipp"]["calls"],
            "command": "scripts/bench-sip-instructions.sh (sipp -sf uac-hold.xml and uas-hold.xml under callgrind)"},
           [sipp / cs], goal="≤ SIPp's instructions per call, history check and report included (issue 33)",
           meets=sipp / cs >= 1,
           note=f"Deterministic: instruction counts do not change with the machine's load. {j['rate']} calls/s, runs of "
                f"{j['planned'][0]} and {j['planned'][1]} calls per side through one native Kamailio; per call = the "
                "difference of the instruction totals over the difference of the calls completed (start-up, "
                "registration and the report cancel out). Ratio: SIPp's instructions ÷ callstorm's, the calls per "
                "CPU-second ratio in user space (both sides pay the same kernel cost per datagram).")
    layers = j["callstorm"].get("layers") or {}
    if layers:
        figure("sip_instructions_layers", "SIP: callstorm's instructions per call by layer (callgrind self cost by "
               "module, the same two runs)",
               {"name": "callstorm SIP devices", "unit": "instructions/call", **_one(sum(layers.values())),
                "layers": layers, "command": "scripts/callgrind_layers.py (from bench-sip-instructions.sh's profiles)"},
               {"name": "SIPp 3.6.1 UAC + UAS", "unit": "instructions/call", **_one(sipp)}, None,
               note="Each function's own instructions, put in the layer of its module (docs/ARCHITECTURE.md): "
                    + "; ".join(f"{name} {value:,}" for name, value in layers.items())
                    + ". Generic standard-library code the optimiser did not specialise counts as the Swift "
                    "runtime's, not its caller's (scripts/callgrind_layers.py).")
    from bench_results_media import media_instruction_figures
    media_instruction_figures(j, figure)


def open_lines(path):
    """The lines of a file, [] when it is missing."""
    try:
        return [line for line in open(path) if line.strip()]
    except OSError:
        return []


def report(work, results, date):
    """Writes RESULTS/sip-DATE.json and .md from WORK/sip. Judged by the one load rule (bench_results_load.py):
    the suite's, which takes the suite's own earlier sections out of the load before this one, when bench.sh ran
    it; the section's own samples when bench-sip.sh ran alone."""
    from bench_results_load import LoadRule
    outdir = os.path.join(work, "sip")
    suite = LoadRule(work)
    ran_in_suite = suite.starts and len(open_lines(os.path.join(work, "span-sip"))) >= 2
    judged, load = (suite if ran_in_suite else LoadRule(outdir)).judge("sip")
    figures = []

    def figure(fid, title, subject, peer, ratio, goal=None, meets=None, note=None, extra=None):
        f = {"id": fid, "title": title, "subject": subject, "peer": peer, "ratio": ratio, "note": note, **(extra or {})}
        if goal:
            f["goal"], f["meets_goal"] = (goal, meets) if judged else (f"{goal} (not judged: {load})", None)
        figures.append(f)

    sip_figures(work, figure)
    instruction_figure(work, figure)
    json.dump({"date": date, "load": load, "judged": judged, "figures": figures},
              open(os.path.join(results, f"sip-{date}.json"), "w"), indent=2)
    try:
        seconds = int(open(os.path.join(outdir, "seconds")).read())
        rungs = ", ".join(f"{r:,}" for r, *_ in ladder(outdir, seconds))
    except (OSError, ValueError):
        seconds, rungs = None, "none"
    lines = [f"# callstorm SIP bench, {date}", "", f"**Run:** rungs {rungs} calls/s, {seconds} s each "
             "(scripts/bench-sip.sh; docs/SIP.md, \"Head to head with SIPp\").", "",
             f"**Load:** {load}. " + ("Judged." if judged else
             "Not judged: the machine was not quiet (scripts/bench_results_load.py's rule)."), "",
             "| figure | callstorm | peer | ratio | goal |", "|---|---|---|---|---|"]
    def fmt(x):
        return "–" if x is None else f"{x:.3g}" if abs(x) < 10 else f"{x:,.0f}"

    for f in figures:
        s, p = f["subject"], f["peer"]
        verdict = {True: "met", False: "**missed**", None: "–"}[f.get("meets_goal")]
        lines.append(f"| {f['title']} | {fmt(s.get('median'))} {s['unit']} | {p['name']}: {fmt(p.get('median'))} "
                     f"{p['unit']} | {fmt(f['ratio'][0]) if f['ratio'] else '–'} | "
                     f"{(f.get('goal') or '') + (': ' + verdict if f.get('goal') else '')} |")
    lines += ["", "## Notes", ""] + [f"- **{f['title']}**: {f['note']}" for f in figures]
    open(os.path.join(results, f"sip-{date}.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "held-sipp":
        print(sipp_verdict(sipp_run(sys.argv[2], int(sys.argv[3]))))
    elif command == "held-callstorm":
        print(callstorm_verdict(cs_run(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
    elif command == "held-rate":
        rows = ladder(sys.argv[2], int(sys.argv[3]))
        # Issue 33: the wake-up path is run at the rate SIPp held (its goal), else at callstorm's, else the lowest.
        print(held_rate(rows, 0) or held_rate(rows, 1) or (rows[0][0] if rows else 100))
    elif command == "report":
        report(*sys.argv[2:5])
    else:
        sys.exit(__doc__)
