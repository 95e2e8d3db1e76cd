#!/usr/bin/env bash
# usage: scripts/bench-sip-wake-instructions.sh [RATE] [N1] [N2] — instructions per call on the SIP push wake-up
# path under callgrind (issue 33): Benchmarks/scenarios/sip-hold-wake.yaml (both devices asleep; Kamailio, WITH_PUSH,
# parks the INVITE and pushes to the run's gateway; the callee reports the call, REGISTERs from a new socket and gets
# the INVITE), run twice, N1 and N2 calls at RATE calls/s (default 20/s, 40 and 120), with the same devices; the
# difference of the instruction totals over the difference of the calls completed is one call's cost, start-up,
# registration and report cancelled out, as scripts/bench-sip-instructions.sh does for the awake call. Then the
# same difference for the push gateway's part alone (functions of PushGateway, HTTPServer, nghttp2, and the push
# sink's hand-over to the worker: `callgrind_annotate --inclusive` of `APNsGateway.handle` and the server loop) and
# by layer (scripts/callgrind_layers.py). Counts do not depend on the machine's load. KEEP=1 keeps the files.
# env: CALLSTORM_BIN (.build/release/callstorm).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
rate=${1:-20}; n1=${2:-40}; n2=${3:-120}
bin=${CALLSTORM_BIN:-$root/.build/release/callstorm}
d=$(mktemp -d)
source "$root/scripts/callgrind-runs.sh"
source "$root/scripts/bench-sip-lib.sh"
gport=$(free_port)
jwt=$(push_jwt "$d/key.p8")
push_keep "http://127.0.0.1:$gport" "$jwt"
kamailio_scratch 256 -A WITH_PUSH -A "PUSH_URL=\"http://127.0.0.1:$gport\"" -A "PUSH_JWT=\"$jwt\"" "${push_keep[@]}"
objcopy --strip-debug "$bin" "$d/cs"

# wake_total N: callstorm's instructions for N calls on the wake-up path; the profile is kept.
wake_total() {
    local secs=$(( $1 / rate ))
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s/127.0.0.1:2197/127.0.0.1:$gport/" \
        -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${secs}s|" \
        -e "s/^devices: [0-9]*/devices: $(( rate * 10 > 200 ? rate * 10 : 200 ))/" -e "s/^drain: 10s/drain: 60s/" \
        -e "s/action_timeout: 5s/action_timeout: 60s/" -e "s/deadline: 2s/deadline: 30s/" \
        "$root/Benchmarks/scenarios/sip-hold-wake.yaml" > "$d/wake-$1.yaml"
    valgrind --tool=callgrind --callgrind-out-file="$d/wake-$1.callgrind" "$d/cs" run "$d/wake-$1.yaml" \
        --workers 1 --out "$d/wake-$1" --quiet > "$d/wake-$1.log" 2> "$d/wake-$1.cg"
    collected "$d/wake-$1.cg"
}
# inclusive NAME FILE: the inclusive instructions of the functions whose (demangled) name contains NAME.
inclusive() {
    callgrind_annotate --inclusive=yes --threshold=100 "$2" 2>/dev/null | python3 -c '
import re, sys
best = 0
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) ", line)
    if m and sys.argv[1] in line:
        best = max(best, int(m.group(1).replace(",", "")))
print(best)' "$1"
}
c1=$(wake_total "$n1"); c2=$(wake_total "$n2")
m1=$(completed "$d/wake-$n1/summary.json"); m2=$(completed "$d/wake-$n2/summary.json")
echo "wake-up path: $c1 instructions for $m1 calls, $c2 for $m2 (of $n1 and $n2 planned): $(per_call "${c1:-0}" \
"${c2:-0}" "$m1" "$m2") per call; load average $(cut -d' ' -f1-3 /proc/loadavg) (counts do not depend on it)"
# Mangled names: inside module PushGateway, `APNsGateway` is written `04APNsB0` (Swift reuses the word "Gateway"),
# so `PushGateway11APNsGatewayC6handle` never matched and that row printed 0 until 2026-12-06.
# And what only the wake call does on the device's side (2026-12-07): the four REGISTERs (`send` holds every
# REGISTER sent, `receive` the 401s and 200s read), the woken agent's reopen (its headers moved to the new port inside
# it: `SIPLocalHeaders.Parts(_:port:)`) and the sleeping one's park.
for part in HTTPServer9EventLoopC3run PushGateway04APNsB0C6handle EventPolling0A6ThreadC4post \
        SIPClient18RegistrationClientC4send SIPClient18RegistrationClientC7receive SIPClient0A4PoolC6reopen \
        SIPClient0A4PoolC4park LocalHeadersV5Parts33_28900471D0617DAB6D9D8E8974E42419LLC_4port; do
    a=$(inclusive "$part" "$d/wake-$n1.callgrind"); b=$(inclusive "$part" "$d/wake-$n2.callgrind")
    echo "  $part (inclusive, largest entry): $(per_call "${a:-0}" "${b:-0}" "$m1" "$m2") per call"
done
python3 "$root/scripts/callgrind_layers.py" "$d/wake-$n1.callgrind" "$d/wake-$n2.callgrind" "${m1:-0}" "${m2:-0}" \
    || echo "callgrind_layers.py could not read the profiles"
