#!/usr/bin/env bash
# usage: scripts/bench-capacity-instructions.sh [RATE] [N1] [N2] — instructions per call of `make bench`'s capacity
# section (Scenarios/capacity.yaml: incoming-1to1 over HTTP with the embedded reference target in the same process,
# so the count is everything the two cores run for a call: devices, wire client, push intake, target, gateway)
# under callgrind. The ramp is taken out: a fixed RATE calls/s (default 10/s) for N1 and N2 calls (default 40 and
# 120) with the same 400 devices, long timeouts so valgrind's slowness changes no outcome; the difference of the two
# totals over the difference of the calls completed is one call's cost (start-up and registration cancel out), as
# scripts/bench-sip-instructions.sh does for SIP. Then scripts/callgrind_http_layers.py: per layer and the
# functions that grew most. Instruction counts do not change with the machine's load. KEEP=1 keeps the files.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
rate=${1:-10}; n1=${2:-40}; n2=${3:-120}
bin=${CALLSTORM_BIN:-$root/.build/release/callstorm}
d=$(mktemp -d)
source "$root/scripts/callgrind-runs.sh"
trap '[ -n "${KEEP:-}" ] && echo "$d" || rm -rf "$d"' EXIT
objcopy --strip-debug "$bin" "$d/cs"  # valgrind cannot read the Swift binary's DWARF; the symbols stay
# run N: the capacity flow at RATE for N calls; prints the instructions.
run() {
    local secs=$(( $1 / rate ))
    sed -e "s/^devices: [0-9]*/devices: 400/" -e "s|^  - ramp: .*|  - hold: { rate: $rate/s, for: ${secs}s }|" \
        -e "s/^drain: 10s/drain: 60s/" -e "s/action_timeout: 5s/action_timeout: 60s/" -e "s/deadline: 2s/deadline: 30s/" \
        -e '/^capacity:/,/^  stop:/d' -e '/^harness:/d' "$root/Scenarios/capacity.yaml" > "$d/cap-$1.yaml"
    valgrind --tool=callgrind --callgrind-out-file="$d/cap-$1.callgrind" "$d/cs" run "$d/cap-$1.yaml" \
        --workers 1 --out "$d/cap-$1" --quiet > "$d/cap-$1.log" 2> "$d/cap-$1.cg"
    collected "$d/cap-$1.cg"
}
c1=$(run "$n1"); c2=$(run "$n2")
m1=$(completed "$d/cap-$n1/summary.json"); m2=$(completed "$d/cap-$n2/summary.json")
per=$(per_call "${c1:-0}" "${c2:-0}" "$m1" "$m2")
echo "capacity flow: $c1 instructions for $m1 calls, $c2 for $m2 (of $n1 and $n2 planned): $per per call"
python3 "$root/scripts/callgrind_http_layers.py" "$d/cap-$n1.callgrind" "$d/cap-$n2.callgrind" "$m1" "$m2" \
    || echo "callgrind_http_layers.py could not read the profiles"
