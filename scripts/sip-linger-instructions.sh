#!/usr/bin/env bash
# usage: scripts/sip-linger-instructions.sh [BIN] — what one SIP call costs as the agents' finished transactions
# pile up. Over UDP a finished transaction lingers 32 s to absorb retransmissions (RFC 3261's Timers D and J,
# RFC 6026's M): in the hold call each caller keeps its three INVITEs and each callee its BYE, so at 3 devices per
# call/s (the bench's ratio) a device holds ~40 after 32 s. The hold call (Benchmarks/scenarios/sip-hold.yaml) runs
# under callgrind through one native Kamailio with DEVICES devices (60) at RATE calls/s (20) for each length in
# LENGTHS (seconds, "5 10 40"); each pair of consecutive lengths gives the instructions per call of the calls the
# longer run added (the difference of the totals over the difference of the calls completed), in all and by layer
# (callgrind_layers.py). A cost that grows with the lingering transactions shows as the later pair's agent row
# costing more than the earlier's (issue 33, docs/SIP.md 2026-12-08). BIN: a callstorm binary (the release build).
# KEEP=1 keeps the files.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/.build/release/callstorm}
rate=${RATE:-20}; devices=${DEVICES:-60}; lengths=${LENGTHS:-5 10 40}
d=$(mktemp -d)
source "$root/scripts/callgrind-runs.sh"
source "$root/scripts/bench-sip-lib.sh"
kamailio_scratch 64
objcopy --strip-debug "$bin" "$d/cs"

# run SECONDS: the hold call for SECONDS under callgrind; prints its instruction total and calls completed.
run() {
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${1}s|" \
        -e "s/^devices: [0-9]*/devices: $devices/" -e "s/^drain: 10s/drain: 60s/" \
        -e "s/action_timeout: 5s/action_timeout: 60s/" "$root/Benchmarks/scenarios/sip-hold.yaml" > "$d/cs-$1.yaml"
    valgrind --tool=callgrind --callgrind-out-file="$d/cs-$1.callgrind" "$d/cs" run "$d/cs-$1.yaml" --workers 1 \
        --out "$d/cs-$1" --quiet > "$d/cs-$1.log" 2> "$d/cs-$1.cg"
    echo "$(collected "$d/cs-$1.cg") $(completed "$d/cs-$1/summary.json")"
}

declare -A total calls
for s in $lengths; do
    read -r total[$s] calls[$s] <<< "$(run "$s")"
    echo "${s} s: ${total[$s]} instructions, ${calls[$s]} calls completed of $(( s * rate )) planned"
done
prev=""
for s in $lengths; do
    if [ -n "$prev" ]; then
        echo "== calls from ${prev} s to ${s} s: $(per_call "${total[$prev]}" "${total[$s]}" "${calls[$prev]}" \
            "${calls[$s]}") instructions per call"
        python3 "$root/scripts/callgrind_layers.py" "$d/cs-$prev.callgrind" "$d/cs-$s.callgrind" "${calls[$prev]}" \
            "${calls[$s]}" | grep -E "instructions per call|agent|in all"
    fi
    prev=$s
done
