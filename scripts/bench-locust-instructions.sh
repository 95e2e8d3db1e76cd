#!/usr/bin/env bash
# usage: scripts/bench-locust-instructions.sh [RATE] [N1] [N2] — instructions per call of `make bench`'s Locust
# comparison (Benchmarks/scenarios/vs-locust.yaml: register → start → join → end with the callee joining on its
# push, through the wire client and the run's own gateway) under callgrind, against a standalone `callstorm target`
# of the same binary (not counted, as in the bench). A fixed RATE calls/s (default 10/s) for N1 and N2 calls (40 and
# 120), 400 devices, long timeouts so valgrind's slowness changes no outcome; the difference of the two totals over
# the difference of the calls completed is one call's cost (start-up, registration and the fixed part of the report
# cancel out), as scripts/bench-capacity-instructions.sh does for its flow. Then scripts/callgrind_http_layers.py
# (per layer, the functions that grew most) and scripts/callgrind_arc.py (retains, releases, allocations a call).
# At 10 calls/s the per-second work (recorder checkpoints, ticks) is charged ~1/10 s a call, which at Locust's rate
# (~1,800 calls/s) nearly vanishes. CALLSTORM_BIN picks the binary; KEEP=1 keeps the profiles (printed).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
rate=${1:-10}; n1=${2:-40}; n2=${3:-120}
bin=${CALLSTORM_BIN:-$root/.build/release/callstorm}
d=$(mktemp -d)
source "$root/scripts/callgrind-runs.sh"
trap '[ -n "${KEEP:-}" ] && echo "$d" || rm -rf "$d"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
objcopy --strip-debug "$bin" "$d/cs"  # valgrind cannot read the Swift binary's DWARF; the symbols stay
# run N: the flow at RATE for N calls against a fresh target; prints the instructions.
run() {
    local secs=$(( $1 / rate )) tport gport tpid
    tport=$(free_port); gport=$(free_port)
    "$bin" target --listen "127.0.0.1:$tport" --apns-url "http://127.0.0.1:$gport" > "$d/target-$1.log" 2>&1 &
    tpid=$!
    for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$tport") 2>/dev/null && break; sleep 0.1; done
    sed -e "s/127.0.0.1:0/127.0.0.1:$gport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${secs}s|" \
        -e "s/devices: 2000/devices: 400/" -e "s/drain: 10s/drain: 30s/" -e "s/action_timeout: 5s/action_timeout: 30s/" \
        -e "s/deadline: 2s/deadline: 30s/" -e "s/^target: {/target: { client: ${BENCH_HTTP_CLIENT:-wire},/" \
        "$root/Benchmarks/scenarios/vs-locust.yaml" > "$d/vs-$1.yaml"
    valgrind --tool=callgrind --callgrind-out-file="$d/cs-$1.callgrind" "$d/cs" run "$d/vs-$1.yaml" \
        --target "http://127.0.0.1:$tport" --workers 1 --out "$d/run-$1" --quiet > "$d/run-$1.log" 2> "$d/cs-$1.cg"
    kill "$tpid"; wait "$tpid" 2>/dev/null
    grep -o "Collected : [0-9]*" "$d/cs-$1.cg" | awk '{print $3}'
}
c1=$(run "$n1"); c2=$(run "$n2")
m1=$(completed "$d/run-$n1/summary.json"); m2=$(completed "$d/run-$n2/summary.json")
per=$(per_call "${c1:-0}" "${c2:-0}" "$m1" "$m2")
echo "vs-locust flow: $c1 instructions for $m1 calls, $c2 for $m2 (of $n1 and $n2 planned): $per per call"
python3 "$root/scripts/callgrind_http_layers.py" "$d/cs-$n1.callgrind" "$d/cs-$n2.callgrind" "$m1" "$m2" \
    || echo "callgrind_http_layers.py could not read the profiles"
python3 "$root/scripts/callgrind_arc.py" "$d/cs-$n1.callgrind" "$d/cs-$n2.callgrind" "$m1" "$m2" --top 40 \
    || echo "callgrind_arc.py could not read the profiles"
