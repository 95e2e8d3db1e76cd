#!/usr/bin/env bash
# `make bench`, section otlp (issue 38, the cost row): calls per client CPU-second with OpenTelemetry export off,
# with traces at 10 % and at 100 % of calls. The same flow at the same planned rate each time (the register → start
# → join → end flow of Benchmarks/scenarios/vs-locust.yaml, OTLP_RATE calls/s for OTLP_SECONDS), callstorm pinned to
# the client core, a fresh standalone `callstorm target` and an answering OTLP sink (scripts/otlp-receiver.py with
# OUT "-": no decoding) on the server core, each run measured by GNU time. The three variants run in a rotated order
# each round, so drift in the machine does not favour one; bench_results_otlp.py turns the files into rows, the
# ratio of each variant to export off per round, median over rounds (the goal: ≥ 0.95 at 10 %).
#
# Usage: scripts/bench-otlp.sh WORK   (writes WORK/otlp/<variant>-<round>{.yaml,.time,.log,/})
# Env: CALLSTORM_BIN (default .build/release/callstorm), SERVER_CPU (1), CLIENT_CPU (0), BENCH_ROUNDS (3),
# OTLP_SECONDS (10), OTLP_RATE (400).
# Not to be run on a loaded machine: the figure is a CPU-time ratio, and a busy core skews both sides differently.
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?usage: scripts/bench-otlp.sh WORK}
out=$work/otlp
mkdir -p "$out"
bin=${CALLSTORM_BIN:-$PWD/.build/release/callstorm}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
[ "$(nproc)" -ge 2 ] || { SERVER_CPU=0; CLIENT_CPU=0; }
ROUNDS=${BENCH_ROUNDS:-3}
SECONDS_PER_RUN=${OTLP_SECONDS:-10}
RATE=${OTLP_RATE:-400}
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
    for _ in $(seq 1 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "nothing listens on port $1" >&2
    return 1
}
wait_file() {
    for _ in $(seq 1 200); do [ -s "$1" ] && return 0; sleep 0.05; done
    echo "no $1" >&2
    return 1
}

# run_variant NAME SHARE: one run; SHARE is "" for export off, else the trace share (10%, 100%).
run_variant() {
    local name=$1 share=$2 tport gport sport="" tpid spid=""
    tport=$(free_port)
    gport=$(free_port)
    while [ "$gport" = "$tport" ]; do gport=$(free_port); done
    taskset -c "$SERVER_CPU" "$bin" target --listen "127.0.0.1:$tport" --apns-url "http://127.0.0.1:$gport" \
        > "$out/$name.target.log" 2>&1 & tpid=$!; pids+=("$tpid")
    wait_port "$tport"
    sed -e "s/127.0.0.1:0/127.0.0.1:$gport/" -e "s|rate: [0-9]*/s|rate: $RATE/s|" \
        Benchmarks/scenarios/vs-locust.yaml > "$out/$name.yaml"
    if [ -n "$share" ]; then
        rm -f "$out/$name.port"
        taskset -c "$SERVER_CPU" python3 scripts/otlp-receiver.py - "$out/$name.port" \
            > "$out/$name.sink.log" 2>&1 & spid=$!; pids+=("$spid")
        wait_file "$out/$name.port"
        sport=$(cat "$out/$name.port")
        printf 'observability:\n  otlp: { endpoint: "http://127.0.0.1:%s", interval: 10s }\n  trace: { share: %s }\n' \
            "$sport" "$share" >> "$out/$name.yaml"
    fi
    rm -rf "${out:?}/$name"
    # OTEL_EXPORTER_OTLP_ENDPOINT unset: the off run must not export to a collector the environment names.
    /usr/bin/time -f '%U %S %M %e %w %c' -o "$out/$name.time" env -u OTEL_EXPORTER_OTLP_ENDPOINT \
        taskset -c "$CLIENT_CPU" "$bin" run "$out/$name.yaml" --target "http://127.0.0.1:$tport" --workers 1 \
        --duration "${SECONDS_PER_RUN}s" --out "$out/$name" --quiet > "$out/$name.log" 2>&1 || true
    stop "$tpid"
    [ -z "$spid" ] || stop "$spid"
    echo "  $name: $(python3 scripts/bench_results_otlp.py one "$out" "$name")"
}

variants=("off:" "t10:10%" "t100:100%")
for round in $(seq 1 "$ROUNDS"); do
    # Rotated by round: off, 10 %, 100 %; then 10 %, 100 %, off; …
    for i in 0 1 2; do
        v=${variants[$(( (i + round - 1) % 3 ))]}
        run_variant "${v%%:*}-$round" "${v#*:}"
    done
done
python3 scripts/bench_results_otlp.py summary "$out"
