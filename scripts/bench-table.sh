#!/usr/bin/env bash
# Rewrites README.md's performance table (between the bench-table markers) from the latest
# Benchmarks/results/<date>.json, so the README never shows figures typed by hand. `make bench` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
latest=$(ls Benchmarks/results/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].json 2>/dev/null | sort | tail -1)
[ -n "$latest" ] || { echo "no Benchmarks/results/<date>.json yet: run make bench" >&2; exit 1; }
python3 - "$latest" README.md <<'PY'
import json, sys
path, readme = sys.argv[1:3]
r = json.load(open(path))
begin, end = "<!-- bench-table:begin -->", "<!-- bench-table:end -->"

def fmt(x):
    if x is None:
        return "–"
    if isinstance(x, float) and abs(x) < 10:
        return f"{x:.3g}" if abs(x) < 1 else f"{x:.2f}"
    return f"{x:,.0f}"

rows = []
for f in r["figures"]:
    if "skipped" in f:
        rows.append(f"| {f['id']} | skipped: {f['skipped']} | | |")
        continue
    if f.get("measured_alone_at"):  # a section rerun alone (BENCH_ONLY + BENCH_CARRY_OVER) says its own commit
        f["title"] += f" (measured alone at commit {f['measured_alone_at']})"
    goal = ""
    if f.get("goal"):
        verdict = {True: "met", False: "**missed**", None: "–"}[f["meets_goal"]]
        goal = f"{f['goal']}: {verdict}"
    s, p = f["subject"], f["peer"]
    if f["id"] == "timer_accuracy":
        value = (f"p50 {fmt(s['p50'])} / p99 {fmt(s['p99'])} / max {fmt(s['max'])} ms at "
                 f"{fmt(f.get('actions_per_second'))} actions/s")
        if "max" in p:  # the hiccup probe beside the run (bench-hiccup-probe.py)
            value += (f"; the machine's own hiccups ({p['priority']} priority probe): max {fmt(p['max'])} ms"
                      + (f", stalls ≥ {fmt(p['stall_ms'])} ms in second(s) "
                         f"{', '.join(str(x) for x in p['stalled_seconds'])}, callstorm's max outside them "
                         f"{fmt(p['lag_max_outside_stalled_ms'])} ms" if p["stalled_seconds"] else ""))
        rows.append(f"| {f['title']} | {value} | – | {goal} |")
        continue
    if f["id"] == "devices_rss":
        b, rg = f["bytes_per_device"], f.get("registration_seconds")
        value = f"{fmt(b['median'])} bytes/device" + (f", registered in {fmt(rg['median'])} s" if rg else "")
        rows.append(f"| {f['title']} | {value} (peer: {p['name']}) | – | {goal} |")
        continue
    if f["id"] == "ws_storm":
        t99, t100 = f.get("seconds_to_99"), f.get("seconds_to_all")
        value = (f"{fmt(t99)} s to 99 % back, {fmt(t100)} s to all; the targets accepted "
                 f"{fmt(f.get('accept_rate_mean'))}/s (peak {fmt(f.get('accept_rate_peak'))}/s)")
        rows.append(f"| {f['title']} | {value} | – | {goal} |")
        continue
    if f["id"] == "sip_instructions_layers_media":  # what media adds to each layer, in brackets
        value = " · ".join(f"{name.split(' (')[0]} {fmt(n)} ({s['added'].get(name, 0):+,})"
                           for name, n in s["layers"].items())
        rows.append(f"| {f['title']} | {value} instructions/call | – | {goal} |")
        continue
    if f["id"] == "sip_instructions_layers":
        value = " · ".join(f"{name.split(' (')[0]} {fmt(n)}" for name, n in s["layers"].items())
        rows.append(f"| {f['title']} | {value} instructions/call | – | {goal} |")
        continue
    ratio = f["ratio"]
    value = f"{fmt(s.get('median'))} {s['unit']} vs {p['name']} {fmt(p.get('median'))} {p['unit']}"
    rtext = f"{fmt(ratio['median'])} ({fmt(ratio['min'])}–{fmt(ratio['max'])})" if ratio else "–"
    if f.get("detail"):  # figures a row carries beside its two sides (e.g. the SIP wake-up's parts per transport)
        value += f"; {f['detail']}"
    rows.append(f"| {f['title']} | {value} | {rtext} | {goal} |")
if not any(f["id"] in ("sip_per_cpu", "sip_held_rate") for f in r["figures"]):
    # Issue 26's rows until a results file has them (`make bench`'s sip section; scripts/bench-sip.sh).
    rows.append("| SIP: calls per client CPU-second and held call rate, callstorm's SIP devices vs SIPp (UAC + UAS) "
                "through one Kamailio; the push wake-up path at the held rate | not yet measured on a quiet machine "
                "| – | ≥ 1× SIPp per client CPU-second (issue 33) |")
table = "\n".join([
    f"Latest: {r['date']}, {r['machine']} (commit {r['commit']}; {r['rounds']} alternating rounds, medians; "
    f"`make bench` took {r['suite_seconds']} s). {r['noise']} Full figures, commands and min/max: "
    f"`{path}` and its `.md`.",
    "",
    "| figure | callstorm vs peer (medians) | ratio, median (min–max) | goal |",
    "|---|---|---|---|",
    *rows,
])
text = open(readme).read()
if begin not in text or end not in text:
    sys.exit(f"README.md lacks the {begin} … {end} markers")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(readme, "w").write(head + begin + "\n" + table + "\n" + end + tail)
print(f"README.md table rewritten from {path}")
PY
