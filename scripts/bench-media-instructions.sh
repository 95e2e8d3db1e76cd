#!/usr/bin/env bash
# usage: scripts/bench-media-instructions.sh [CALLS] [TALK1] [TALK2] — instructions per RTP packet handled (sent or
# received) under callgrind, the client only: Benchmarks/scenarios/sip-media.yaml (both ends callstorm SIP devices,
# PCMU every 20 ms both ways from each end's answer, straight between the devices: no relay) through one native
# Kamailio, CALLS calls (default 10) at 2 calls/s, run twice with the same calls and devices, once with TALK1 ms of
# talk (1000) and once with TALK2 (5000). The calls' SIP, start-up and report are the same in both runs, so the
# difference of the instruction totals over the difference of the packets handled is what one more packet costs;
# then scripts/callgrind_layers.py with the packets as its unit: per layer, per packet. Instruction counts do not
# depend on the machine's load, but a valgrind-slowed loop that falls behind the media clock batches differently,
# so compare runs whose packet counts are alike. Prints one line; KEEP=1 keeps the files. env: CALLSTORM_BIN.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
calls=${1:-10}; t1=${2:-1000}; t2=${3:-5000}
bin=${CALLSTORM_BIN:-$root/.build/release/callstorm}
d=$(mktemp -d)
source "$root/scripts/bench-sip-lib.sh"
kamailio_scratch 64
objcopy --strip-debug "$bin" "$d/cs"

# run TALK: the calls with TALK ms of audio under callgrind; prints the instructions and the packets handled.
run() {
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: 2/s, for: $(( calls / 2 ))s|" \
        -e "s/^devices: [0-9]*/devices: 40/" -e "s/wait: 4000ms/wait: ${1}ms/" -e "s/^drain: 10s/drain: 60s/" \
        -e "s/action_timeout: 5s/action_timeout: 60s/" -e "s/one_way_after: 1s/one_way_after: 60s/" \
        "$root/Benchmarks/scenarios/sip-media.yaml" > "$d/m$1.yaml"
    valgrind --tool=callgrind --callgrind-out-file="$d/m$1.callgrind" "$d/cs" run "$d/m$1.yaml" --workers 1 \
        --out "$d/m$1" --quiet > "$d/m$1.log" 2> "$d/m$1.cg"
    python3 - "$d/m$1.cg" "$d/m$1/summary.json" <<'PY'
import json, re, sys
total = int(re.search(r"Collected : (\d+)", open(sys.argv[1]).read()).group(1))
c = json.load(open(sys.argv[2]))["counters"]
print(total, c.get("media.packets_sent", 0) + c.get("media.packets_received", 0), c.get("calls.completed", 0))
PY
}
read -r i1 p1 c1 < <(run "$t1")
read -r i2 p2 c2 < <(run "$t2")
per=$(( p2 > p1 ? (i2 - i1) / (p2 - p1) : 0 ))
echo "media: $i1 instructions for $p1 packets ($c1 calls, ${t1} ms talk), $i2 for $p2 ($c2 calls, ${t2} ms): $per per packet"
python3 "$root/scripts/callgrind_layers.py" "$d/m$t1.callgrind" "$d/m$t2.callgrind" "$p1" "$p2" \
    || echo "callgrind_layers.py could not read the profiles"
