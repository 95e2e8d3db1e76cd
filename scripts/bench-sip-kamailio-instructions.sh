#!/usr/bin/env bash
# usage: scripts/bench-sip-kamailio-instructions.sh [RATE] [N1] [N2] — the bench's Kamailio's instructions per call
# under callgrind (issue 33: what the wake-up path costs the server), on the awake call
# (Benchmarks/scenarios/sip-hold.yaml) and on the push wake-up path (sip-hold-wake.yaml): Kamailio (WITH_PUSH, as
# scripts/bench-sip.sh starts it) under valgrind --tool=callgrind, every process it forks profiled on its own; for
# each call two runs of N1 and N2 calls at RATE calls/s (default 10/s, 50 and 150; callstorm native) against a fresh
# Kamailio each, with the same devices; the difference of Kamailio's instruction totals (all its processes) over
# the difference of the calls completed is one call's cost, start-up and registrations cancelled out. Then the
# same difference by process (SIP workers, push task workers, the rest: timers, main, TCP), by object file, and
# for the functions named in FUNCS (inclusive: a function with everything it calls). Counts do not depend on the
# machine's load. env: CALLSTORM_BIN (.build/release/callstorm), KAMAILIO_CFG, KAMAILIO_ARGS (more arguments, e.g.
# "-x tlsf -X tlsf"), CALLS ("plain wake"), FUNCS, KEEP=1 keeps the files.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
rate=${1:-10}; n1=${2:-50}; n2=${3:-150}
bin=${CALLSTORM_BIN:-$root/.build/release/callstorm}
d=$(mktemp -d)
source "$root/scripts/bench-sip-lib.sh"
gport=$(free_port)
jwt=$(push_jwt "$d/key.p8")
push_keep "http://127.0.0.1:$gport" "$jwt"
read -r -a extra <<< "${KAMAILIO_ARGS:-}"
FUNCS=${FUNCS:-"receive_msg udp_rcv_loop qm_malloc qm_free fm_malloc tlsf_malloc w_t_relay t_relay_to w_save \
pv_www_authenticate www_challenge ts_append ts_store async_task_data async_task_run w_curl_http_query \
curl_easy_perform curl_easy_init sanity_check xlog_1 ht_get_cell_pv lookup_to_dset parse_msg"}

# one NAME SCENARIO CALLS: callstorm's run of CALLS calls against a fresh Kamailio under callgrind.
one() {
    local name=$1 secs=$(( $3 / rate ))
    mkdir -p "$d/$name.cg"
    KAMAILIO_WRAP="valgrind --tool=callgrind --callgrind-out-file=$d/$name.cg/%p.out" \
        kamailio_scratch 256 -A WITH_PUSH -A "PUSH_URL=\"http://127.0.0.1:$gport\"" -A "PUSH_JWT=\"$jwt\"" "${push_keep[@]}" \
        "${extra[@]}"
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s/127.0.0.1:2197/127.0.0.1:$gport/" \
        -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${secs}s|" \
        -e "s/^devices: [0-9]*/devices: $(( rate * 10 > 100 ? rate * 10 : 100 ))/" -e "s/^drain: 10s/drain: 60s/" \
        -e "s/action_timeout: 5s/action_timeout: 60s/" -e "s/deadline: 2s/deadline: 30s/" \
        "$root/Benchmarks/scenarios/$2" > "$d/$name.yaml"
    "$bin" run "$d/$name.yaml" --workers 1 --out "$d/$name" --quiet > "$d/$name.log" 2>&1
    kamailio_stop "$kpid"
    sleep 1  # the workers write their profiles as they exit
    cp "$d/kamailio.log" "$d/$name.kamailio.log"
}

for call in ${CALLS:-plain wake}; do
    scenario=sip-hold.yaml
    [ "$call" = wake ] && scenario=sip-hold-wake.yaml
    one "$call-$n1" "$scenario" "$n1"
    one "$call-$n2" "$scenario" "$n2"
done
PYTHONPATH="$root/scripts" python3 - "$d" "$n1" "$n2" "${CALLS:-plain wake}" "$FUNCS" <<'PY'
import glob, json, os, re, subprocess, sys
from callgrind_layers import Profile
d, n1, n2, calls, funcs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5].split()

ROLE_MARKS = (("SIP workers (UDP)", "udp_rcv_loop"), ("push task workers (async)", "async_task_run"))


def inclusive(path):
    """{function: inclusive instructions} of one profile, by callgrind_annotate."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*:(\S+)", line) or re.match(r"\s*([\d,]+)\s+\S*:(\S+)", line)
        if m:
            found[m.group(2)] = max(found.get(m.group(2), 0), int(m.group(1).replace(",", "")))
    return found


def run(name):
    """Calls completed, and {row: instructions} summed over Kamailio's processes."""
    try:
        completed = json.load(open(os.path.join(d, name, "summary.json")))["counters"].get("calls.completed", 0)
    except (OSError, ValueError):
        completed = 0
    rows = {}
    for path in glob.glob(os.path.join(d, name + ".cg", "*.out")):
        p = Profile(path)
        total = sum(p.own.values())
        role = next((r for r, mark in ROLE_MARKS if p.own.get(mark, 0) or mark in p.edges),
                    "the rest (main, timers, TCP)")
        rows["total"] = rows.get("total", 0) + total
        rows["process: " + role] = rows.get("process: " + role, 0) + total
        for fn, cost in p.own.items():
            obj = os.path.basename(p.obj.get(fn, "") or "?")
            rows["object: " + obj] = rows.get("object: " + obj, 0) + cost
        for fn, cost in inclusive(path).items():
            if fn in funcs:
                rows["inclusive: " + fn] = rows.get("inclusive: " + fn, 0) + cost
    return completed, rows


results = {}
for call in calls:
    (c1, a), (c2, b) = run(f"{call}-{n1}"), run(f"{call}-{n2}")
    per = {k: (b.get(k, 0) - a.get(k, 0)) / (c2 - c1) for k in set(a) | set(b)} if c2 > c1 else {}
    results[call] = per
    print(f"{call}: {c1} and {c2} calls completed; Kamailio's instructions per call {per.get('total', 0):,.0f}")
keys = sorted({k for per in results.values() for k in per if k != "total"},
              key=lambda k: (k.split(":")[0], -max(abs(per.get(k, 0)) for per in results.values())))
print(f"{'':60s}" + "".join(f"{c:>14s}" for c in calls) + ("          diff" if len(calls) == 2 else ""))
for k in keys:
    vals = [results[c].get(k, 0) for c in calls]
    if max(abs(v) for v in vals) < 2000:
        continue
    diff = f"{vals[1] - vals[0]:>14,.0f}" if len(vals) == 2 else ""
    print(f"{k[:60]:60s}" + "".join(f"{v:>14,.0f}" for v in vals) + diff)
json.dump(results, open(os.path.join(d, "per-call.json"), "w"), indent=1)
PY
