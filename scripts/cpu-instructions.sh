#!/usr/bin/env bash
# usage: scripts/cpu-instructions.sh CALLS_PER_S SECONDS BIN... — the vs-locust flow's client under callgrind,
# against a standalone target of the same binary: the client's total instructions and its calls completed, one line
# per binary. Instruction counts do not change with the machine's load (two runs of one binary differ by ~2 %), so
# this compares binaries on a busy machine where timed rounds cannot (issue 20; docs/results/issue20-cpu-budget.md).
# CLIENT=wire runs the devices through callstorm's own HTTP/1.1 client (`target.client: wire`); CLIENT=curl libcurl;
# unset, the scenario's own setting (the default client).
# Timeouts and the drain are long, so valgrind's slowness changes no outcome. KEEP=1 keeps the callgrind files.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
rate=$1; secs=$2; shift 2
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
d=$(mktemp -d)
for bin in "$@"; do
    tport=$(free_port); gport=$(free_port)
    taskset -c 1 "$bin" target --listen "127.0.0.1:$tport" --apns-url "http://127.0.0.1:$gport" \
        > "$d/target.log" 2>&1 & tpid=$!
    for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$tport") 2>/dev/null && break; sleep 0.1; done
    sed -e "s/127.0.0.1:0/127.0.0.1:$gport/" -e "s/rate: 400\/s, for: 15s/rate: $rate\/s, for: ${secs}s/" \
        -e "s/devices: 2000/devices: 400/" -e "s/drain: 10s/drain: 30s/" -e "s/action_timeout: 5s/action_timeout: 30s/" \
        -e "s/deadline: 2s/deadline: 30s/" "$root/Benchmarks/scenarios/vs-locust.yaml" > "$d/vs.yaml"
    if [ -n "${CLIENT:-}" ]; then sed -i "s/^target: {/target: { client: $CLIENT,/" "$d/vs.yaml"; fi
    rm -rf "$d/run"
    # valgrind cannot read the Swift binary's DWARF; a copy without debug info keeps the symbols.
    objcopy --strip-debug "$bin" "$d/cs"
    valgrind --tool=callgrind --callgrind-out-file="$d/cg.out" "$d/cs" run "$d/vs.yaml" \
        --target "http://127.0.0.1:$tport" --workers 1 --out "$d/run" --quiet > "$d/cg.log" 2>&1
    kill "$tpid"; wait "$tpid" 2>/dev/null
    instructions=$(grep -o "Collected : [0-9]*" "$d/cg.log" | awk '{print $3}')
    calls=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['counters']['calls.completed'])" \
        "$d/run/summary.json" 2>/dev/null)
    echo "$bin: calls ${calls:-none} instructions ${instructions:-none}"
done
if [ -n "${KEEP:-}" ]; then echo "$d"; else rm -rf "$d"; fi
