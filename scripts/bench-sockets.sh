#!/usr/bin/env bash
# `make bench`'s socket section (issue 21): WS_SOCKETS (default 50,000) devices registered on standalone
# `callstorm target --tls --admin` processes, each holding an idle wss event-channel socket from `ws-bench hold`
# (the WebSocketClientPool alone, in its own process, so its memory is measured without the server's); then a
# reconnect storm: every target drops every socket at once (POST /admin/drop-event-sockets) and the clients
# reconnect with seeded, jittered exponential backoff. Then the peer, a Python `websockets` client pool
# (Benchmarks/ws_peer.py), opens WS_PEER_SOCKETS (default N, at most 5,000: see PEER_N) of the same sockets.
#
# Descriptors: no process here may hold more than the hard RLIMIT_NOFILE (20,000 on the bench machine, a container
# without CAP_SYS_RESOURCE, so it cannot be raised), and a target needs one per socket as a client does. So the
# sockets are split over K = ceil(N / (hard limit - 500)) shards, each a target and a client (and a peer) of its
# own, all at once; the figures add the shards up. Targets are pinned to the server core, clients to the other.
#
# usage: scripts/bench-sockets.sh WORKDIR  (env: CALLSTORM_BIN, WS_BENCH_BIN, WS_SOCKETS, WS_PEER_SOCKETS,
# WS_WINDOW (handshakes in flight while opening, 500), WS_BACKOFF_MS (500), WS_BACKOFF_CAP_MS (15000),
# WS_PER_PROCESS (sockets per shard, default the descriptor limit less 500),
# SERVER_CPU, CLIENT_CPU). Writes WORKDIR/sockets/*; bench-results.py reads them.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1/sockets
bin=${CALLSTORM_BIN:-$PWD/.build/release/callstorm}
wsb=${WS_BENCH_BIN:-$PWD/.build/release/ws-bench}
N=${WS_SOCKETS:-50000}
# The peer keeps ~320 KB per socket (asyncio's TLS transport allocates a 256 KiB read buffer per connection) and
# spends ~2.6 ms of CPU per open: 50,000 would take 16 GB and minutes, so it opens at most 5,000 unless told.
PEER_N=${WS_PEER_SOCKETS:-$(( N < 5000 ? N : 5000 ))}
WINDOW=${WS_WINDOW:-500}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
rm -rf "$out" && mkdir -p "$out"
ulimit -n "$(ulimit -Hn)"
per=${WS_PER_PROCESS:-$(( $(ulimit -n) - 500 ))}
shards=$(( (N + per - 1) / per ))
echo "sockets: $N wss sockets over $shards shard(s) (descriptor limit $(ulimit -n) per process), peer $PEER_N"

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
track() { pids+=("$1"); echo "$1" >> "$out/pids"; }
now_ms() { date +%s%3N; }
# wait_for FILE PATTERN SECONDS [PID]: until FILE has a line matching PATTERN; fails early if PID has exited.
wait_for() {
    local deadline=$(( $(date +%s) + $3 ))
    until grep -q "$2" "$1" 2>/dev/null; do
        [ "$(date +%s)" -lt "$deadline" ] || { echo "no '$2' in $1 within $3 s" >&2; return 1; }
        if [ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null; then
            local status=0
            wait "$4" || status=$?
            echo "process $4 exited with status $status before '$2' appeared in $1" >&2
            return 1
        fi
        sleep 0.1
    done
}
# shard_count S TOTAL: how many of TOTAL sockets shard S holds.
shard_count() { local base=$(( $2 / shards )); [ "$1" -lt $(( $2 % shards )) ] && base=$(( base + 1 )); echo "$base"; }
shard_first() { local f=0; for (( t = 0; t < $1; t++ )); do f=$(( f + $(shard_count "$t" "$2") )); done; echo "$f"; }

cat /proc/loadavg > "$out/loadavg-before"
python3 scripts/bench-load-sampler.py "$out/pids" "$out/load-samples" & sampler=$!
pids+=("$sampler")

# MARK: - targets, each with its shard's devices registered from a file (no 50,000 POSTs to wait for)
ports=()
for (( s = 0; s < shards; s++ )); do
    first=$(shard_first "$s" "$N"); count=$(shard_count "$s" "$N")
    python3 -c '
import sys
first, count = int(sys.argv[1]), int(sys.argv[2])
for i in range(first, first + count):
    print(f"{{\"id\":\"d{i}\",\"handle\":{{\"kind\":\"generic\",\"value\":\"d{i}\",\"displayName\":\"d{i}\"}},"
          f"\"apnsToken\":\"{i:064x}\"}}")' "$first" "$count" > "$out/registrations-$s.jsonl"
    taskset -c "$SERVER_CPU" "$bin" target --listen 127.0.0.1:0 --tls --state-dir "$out/state" --admin \
        --registrations "$out/registrations-$s.jsonl" > "$out/target-$s.log" 2>&1 & track $!
    wait_for "$out/target-$s.log" "listening on https://" 60 "${pids[-1]}"
    ports+=("$(sed -n 's/.*listening on https:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$out/target-$s.log")")
done
ca=$out/state/tls/ca.pem
admin() { curl -sS --max-time 10 --cacert "$ca" "$@"; }

# MARK: - ours: open, hold, storm
holds=()
start_ms=$(now_ms)
for (( s = 0; s < shards; s++ )); do
    taskset -c "$CLIENT_CPU" "$wsb" hold --prefix "wss://127.0.0.1:${ports[$s]}/v1/events?device=d" \
        --first "$(shard_first "$s" "$N")" --count "$(shard_count "$s" "$N")" --ca "$ca" --window "$WINDOW" \
        --backoff-ms "${WS_BACKOFF_MS:-500}" --backoff-cap-ms "${WS_BACKOFF_CAP_MS:-15000}" --seed $(( s + 1 )) \
        --stop-file "$out/stop" --out "$out/hold-$s.json" > "$out/hold-$s.log" 2>&1 & track $!
    holds+=($!)
done
for (( s = 0; s < shards; s++ )); do wait_for "$out/hold-$s.log" "^ready" 600 "${holds[$s]}"; done
echo "opened in $(( $(now_ms) - start_ms )) ms (all shards, RSS settled)"
sleep 2
cat /proc/loadavg > "$out/loadavg-storm"
for (( s = 0; s < shards; s++ )); do admin "https://127.0.0.1:${ports[$s]}/admin/event-sockets" \
    > "$out/server-before-$s.json"; done
echo "$(now_ms)" > "$out/storm-start-ms"
drops=()
for (( s = 0; s < shards; s++ )); do
    admin -X POST "https://127.0.0.1:${ports[$s]}/admin/drop-event-sockets" > "$out/drop-$s.json" & drops+=($!)
done
for pid in "${drops[@]}"; do wait "$pid" || true; done
# The drop is answered once the target's loop has ended every socket: how long closing them all took.
echo "$(now_ms)" > "$out/drops-answered-ms"
# The server side, every 250 ms: sockets open and accepted so far, until all are back or 120 s have passed.
deadline=$(( $(date +%s) + 120 ))
while :; do
    t=$(now_ms); open=0; accepted=0
    for (( s = 0; s < shards; s++ )); do
        j=$(admin "https://127.0.0.1:${ports[$s]}/admin/event-sockets" || echo '{}')
        open=$(( open + $(sed -n 's/.*"open":\([0-9]*\).*/\1/p' <<< "$j" | grep . || echo 0) ))
        accepted=$(( accepted + $(sed -n 's/.*"accepted":\([0-9]*\).*/\1/p' <<< "$j" | grep . || echo 0) ))
    done
    echo "$t $open $accepted" >> "$out/server-samples"
    [ "$open" -ge "$N" ] && break
    [ "$(date +%s)" -lt "$deadline" ] || { echo "storm: only $open of $N back after 120 s"; break; }
    sleep 0.25
done
for (( s = 0; s < shards; s++ )); do admin "https://127.0.0.1:${ports[$s]}/admin/event-sockets" \
    > "$out/server-after-$s.json"; done
# The clients count a socket back when their side of the handshake is done, which may trail the server's count.
for (( s = 0; s < shards; s++ )); do wait_for "$out/hold-$s.log" "^back" 30 || true; done
touch "$out/stop"
for (( s = 0; s < shards; s++ )); do wait_for "$out/hold-$s.json" "open_at_stop" 60; done
cat /proc/loadavg > "$out/loadavg-after-ours"

# MARK: - the peer: Python websockets, the same sockets, the same window
if python3 -c "import websockets" 2>/dev/null; then
    peer_pids=()
    for (( s = 0; s < shards; s++ )); do
        # Shard s's target knows devices first … first + its share of N; the peer takes its share of PEER_N.
        taskset -c "$CLIENT_CPU" python3 Benchmarks/ws_peer.py "wss://127.0.0.1:${ports[$s]}/v1/events?device=d" \
            "$(shard_first "$s" "$N")" "$(shard_count "$s" "$PEER_N")" "$ca" "$WINDOW" "$out/peer-$s.json" \
            > "$out/peer-$s.log" 2>&1 & track $!
        peer_pids+=($!)
    done
    for pid in "${peer_pids[@]}"; do wait "$pid" || true; done
else
    echo '{"skipped": "Python websockets is not installed (pip install websockets)"}' > "$out/peer-skipped.json"
fi
cat /proc/loadavg > "$out/loadavg-after"
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
cat > "$out/settings.json" <<JSON
{"sockets": $N, "peer_sockets": $PEER_N, "shards": $shards, "fd_limit": $(ulimit -n), "window": $WINDOW,
 "backoff_ms": ${WS_BACKOFF_MS:-500}, "backoff_cap_ms": ${WS_BACKOFF_CAP_MS:-15000},
 "seconds": $(( ($(now_ms) - start_ms) / 1000 ))}
JSON
echo "sockets: done in $(( ($(now_ms) - start_ms) / 1000 )) s"
