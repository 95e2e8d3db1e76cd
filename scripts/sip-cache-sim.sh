#!/usr/bin/env bash
# usage: scripts/sip-cache-sim.sh [cs|sipp] [DEVICES] — the SIP hold call of scripts/bench-sip-instructions.sh under
# callgrind's cache simulation (L1 as this machine's, the last level forced to 2 MB, the L2 here), 40 and 120 calls at
# 20 calls/s through one native Kamailio: per call, instructions and instruction / data cache misses (the
# difference of the two runs over 80 calls; SIPp's side: UAC + UAS). Counts do not depend on the machine's load.
# docs/SIP.md ("Why an instruction costs callstorm more cycles than SIPp") has what it gave.
# env: CALLSTORM_BIN (.build/release/callstorm). KEEP=1 keeps the work directory. INSTR=1 records each
# instruction's counts (--dump-instr=yes) for scripts/callgrind_cache_lines.py DIR BINARY (misses by source line).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
side=${1:-cs}; nd=${2:-200}
bin=${CALLSTORM_BIN:-$root/.build/release/callstorm}
d=$(mktemp -d)
source "$root/scripts/bench-sip-lib.sh"
kamailio_scratch 256
instr=(); [ -n "${INSTR:-}" ] && instr=(--dump-instr=yes)
cg() { local out=$1; shift; valgrind --tool=callgrind --cache-sim=yes --LL=2097152,16,64 "${instr[@]}" --callgrind-out-file="$out" "$@"; }
for n in 40 120; do
    if [ "$side" = sipp ]; then
        uport=$(free_port); cport=$(free_port)
        sipp -sf "$root/deploy/sipp/uas-hold-register.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 -p "$uport" \
            -au sipp-uas -ap callstorm -m 1 -timeout 10s -nostdin > "$d/reg.out" 2>&1
        (cd "$d" && cg "$d/uas-$n.callgrind" sipp -sf "$root/deploy/sipp/uas-hold.xml" -i 127.0.0.1 -p "$uport" \
            -m "$n" -timeout 300s -nostdin > "uas-$n.out" 2> "uas-$n.cg") & upid=$!
        sleep 3
        (cd "$d" && cg "$d/uac-$n.callgrind" sipp -sf "$root/deploy/sipp/uac-hold.xml" -s sipp-uas "127.0.0.1:$kport" \
            -i 127.0.0.1 -p "$cport" -m "$n" -r 20 -timeout 300s -nostdin > "uac-$n.out" 2> "uac-$n.cg")
        wait "$upid"
    else
        sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: 20/s, for: $(( n / 20 ))s|" \
            -e "s/^devices: [0-9]*/devices: $nd/" -e "s/^drain: 10s/drain: 60s/" \
            -e "s/action_timeout: 5s/action_timeout: 60s/" "$root/Benchmarks/scenarios/$sip_hold" > "$d/cs-$n.yaml"
        [ -x "$d/cs" ] || objcopy --strip-debug "$bin" "$d/cs"
        cg "$d/cs-$n.callgrind" "$d/cs" run "$d/cs-$n.yaml" --workers 1 --out "$d/cs-$n" --quiet > "$d/cs-$n.log" 2>&1
    fi
done
python3 - "$d" "$side" <<'PY'
import sys
d, side = sys.argv[1:]
def totals(path):
    events = None
    for line in open(path):
        if line.startswith("events:"): events = line.split()[1:]
        if line.startswith(("summary:", "totals:")): return dict(zip(events, map(int, line.split()[1:])))
def run(n):
    parts = [f"{d}/uac-{n}.callgrind", f"{d}/uas-{n}.callgrind"] if side == "sipp" else [f"{d}/cs-{n}.callgrind"]
    t = [totals(p) for p in parts]
    return {k: sum(x[k] for x in t) for k in t[0]}
a, b = run(40), run(120)
names = {"Ir": "instructions", "I1mr": "L1i misses", "D1mr": "L1d read misses", "D1mw": "L1d write misses",
         "DLmr": "2 MB level read misses", "DLmw": "2 MB level write misses"}
print(f"{side}: per call (120 - 40 calls) / 80")
for k, label in names.items():
    if k in a: print(f"  {label:24s} {(b[k] - a[k]) / 80:12,.0f}")
PY
