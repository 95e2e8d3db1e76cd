#!/usr/bin/env bash
# `make bench`: the benchmark suite. Every figure is measured next to a peer in the same run, the two alternating
# round by round, and reported as min / median / max over the rounds plus the median of the per-round ratios:
# this machine is shared and noisy, so only same-run ratios mean anything. Writes Benchmarks/results/<date>.md and
# .json (the README's table is generated from the latest: scripts/bench-table.sh).
#
# Sections (BENCH_ONLY="gateway raw-http ..." runs a subset): gateway (h2load: callstorm gateway vs nghttpd),
# gateway-instructions (the same under callgrind: instructions per request, immune to machine load),
# raw-http (callstorm raw-http vs wrk on one nginx), devices (50,000 idle devices vs a 4-device baseline),
# metrics (recording cost vs plain adds), checker (1M-op history vs Python's json parsing of the same file),
# scale (Scenarios/scale.yaml: timer accuracy, delivered rate), races (Scenarios/races/*.yaml against the correct
# reference target: conflicting pairs and violations, RACE_SECONDS each), capacity (Scenarios/capacity.yaml: the
# knee, the highest calls/s keeping push_to_report p99 < 100 ms; CAPACITY_RUNS runs, default 2), locust (calls
# per client CPU-second vs Locust and an asyncio aiohttp loop, callstorm at Locust's delivered rate and at its own
# maximum: scripts/bench-peers.sh),
# sockets (WS_SOCKETS idle wss sockets to standalone targets, a reconnect storm, vs Python websockets:
# scripts/bench-sockets.sh, ~4 minutes at the default 50,000 on this machine; WS_SOCKETS=2000 for a quick run),
# sip (callstorm's SIP devices vs SIPp, a UAC and a UAS, on the same call with a hold through one Kamailio: calls per
# client CPU-second and the highest rate each holds, then callstorm's push wake-up path at its held rate:
# scripts/bench-sip.sh, SIP_RATES (100 to 12,800, doubling, each side until it loses its timing) for SIP_SECONDS
# (2 × BENCH_SECONDS) each, ~3 to 5 minutes),
# sip-instructions (the same call's instructions per call under callgrind, SIPp's UAC + UAS vs callstorm: immune to
# machine load; scripts/bench-sip-instructions.sh, about a minute, then callstorm's call again with media at
# media.share 100 % and 10 %, what media adds per call and by layer, a few minutes more; SIP_INSTRUCTIONS_MEDIA=""
# skips those),
# otlp (calls per client CPU-second with OpenTelemetry export off, traces at 10 % and at 100 %, same planned rate,
# rotated order per round: scripts/bench-otlp.sh, OTLP_RATE (400) for OTLP_SECONDS (2 × BENCH_SECONDS) each, 9 runs),
# media (RTP on the same call through one Kamailio + rtpengine: streams per client core and packets per client
# CPU-second, callstorm vs SIPp's rtp_stream, and callstorm's calls per client CPU-second at media.share 100 % and
# 10 % vs none, then a ladder of rates (MEDIA_LADDER) for the streams callstorm holds with its send lag p99 ≤ 1 ms:
# scripts/bench-media.sh, MEDIA_RATE (50) for MEDIA_SECONDS (2 × BENCH_SECONDS), MEDIA_TALK_MS (4000) of audio per
# call, 2 rounds of 4 runs and up to 3 rungs, ~3 to 4 minutes),
# sip-tls and sip-ws (the SIP hold call and the push wake-up path over TLS, over WebSocket, each beside the same over
# TCP through one Kamailio with its TLS/WebSocket listeners: calls per client CPU-second and the wake-up's connect /
# handshake / REGISTER at p50 and p99; SIPp has no TLS or WebSocket in Debian's build, so no peer:
# scripts/bench-sip-transports.sh, SIPT_RATE (100) for SIPT_SECONDS (2 × BENCH_SECONDS), ~2 minutes each),
# sip-storm (Scenarios/chaos/sip-storm.yaml: Kamailio restarted under 2,000 awake TLS devices; time to 99 %
# re-registered, refusals by code, calls lost to the restart: scripts/bench-sip-storm.sh, STORM_DEVICES, ~1 minute).
# Knobs: BENCH_ROUNDS (3), BENCH_SECONDS (5, per load run), BENCH_CONNS ("1000 5000").
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
out=Benchmarks/results
work=$PWD/Benchmarks/work
# BENCH_KEEP_WORK=1 keeps an earlier run's raw files, so a section run alone (BENCH_ONLY) joins them.
[ -n "${BENCH_KEEP_WORK:-}" ] || rm -rf "$work"
mkdir -p "$out" "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
# The load rule (a figure is judged only if the machine was quiet before and during it): every 0.5 s the runnable
# tasks of the machine and how many are this suite's own (its process tree, builds included), in load-samples;
# each section's span (epoch ms) in span-<section>; the suite's start and load in suite-starts. Read by
# scripts/bench_results_load.py.
echo "$(date +%s%3N) $(cut -d' ' -f1 /proc/loadavg)" >> "$work/suite-starts"
python3 scripts/bench-load-sampler.py --tree $$ "$work/load-samples" & pids+=($!)
scripts/bench-deps.sh
# CALLSTORM_BIN measures another build of the CLI (e.g. a copy, while the tree is being rebuilt).
bin=${CALLSTORM_BIN:-$PWD/.build/release/callstorm}
[ -x "$bin" ] || swift build -c release --product callstorm
date=$(date -u +%Y-%m-%d)
ROUNDS=${BENCH_ROUNDS:-3}
SECONDS_PER_RUN=${BENCH_SECONDS:-5}
CONNS=${BENCH_CONNS:-"1000 5000"}
ALL="gateway gateway-instructions raw-http devices metrics checker scale races capacity locust sockets sip"
ALL+=" sip-instructions otlp media sip-tls sip-ws sip-storm"
ONLY=${BENCH_ONLY:-$ALL}
# The helper benchmarks are built only for the sections that run them.
for pair in checker:checker-bench metrics:metrics-bench sockets:ws-bench; do
    [[ " $ONLY " != *" ${pair%%:*} "* ]] || swift build -c release --product "${pair#*:}" >/dev/null
done
SERVER_CPU=1
CLIENT_CPU=0
[ "$(nproc)" -ge 2 ] || { SERVER_CPU=0; CLIENT_CPU=0; }
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
suite_start=$(date +%s)
cat /proc/loadavg > "$work/loadavg-start"
git rev-parse --short HEAD > "$work/commit" 2>/dev/null || true

stop() {  # stop PID: one server this script started
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
    for _ in $(seq 1 200); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "nothing listens on port $1" >&2
    return 1
}
# wanted SECTION: whether it runs; if so, notes the load before it (a section rerun alone is judged on its own load)
# and opens its span, closing the previous section's.
open_span=""
close_span() { [ -z "$open_span" ] || echo "$(date +%s%3N)" >> "$work/span-$open_span"; open_span=""; }
wanted() {
    [[ " $ONLY " == *" $1 "* ]] || return 1
    close_span
    cat /proc/loadavg > "$work/loadavg-$1"
    echo "$(date +%s%3N)" > "$work/span-$1"
    open_span=$1
}
# cpu_seconds FILE: user + system seconds from a GNU time -f '%U %S %M' file.
cpu_seconds() { awk '{ print $1 + $2 }' "$1"; }
peak_kib() { awk '{ print $3 }' "$1"; }
section() { echo; echo "== $1 ($(( $(date +%s) - suite_start )) s into the suite)"; }

# MARK: - push gateway vs nghttpd (issue 3)
if wanted gateway; then
    section "push gateway: h2load vs callstorm gateway and nghttpd"
    BENCH_JSON="$work/gateway.json" BENCH_DURATION=$SECONDS_PER_RUN BENCH_ROUNDS=$ROUNDS CALLSTORM_BIN="$bin" \
        scripts/bench-gateway.sh || echo '{"error": "bench-gateway.sh failed"}' > "$work/gateway.json"
fi

# MARK: - push gateway vs nghttpd in instructions (callgrind): immune to a busy machine
if wanted gateway-instructions; then
    section "push gateway: instructions per request under callgrind vs nghttpd"
    CALLSTORM_BIN="$bin" scripts/bench-gateway-callgrind.sh "$work/gateway-callgrind.json" \
        || echo '{"error": "bench-gateway-callgrind.sh failed"}' > "$work/gateway-callgrind.json"
fi

# MARK: - raw driver throughput: callstorm raw-http vs wrk on one nginx
if wanted raw-http; then
    section "raw HTTP: callstorm raw-http vs wrk against nginx"
    port=$(free_port)
    mkdir -p "$work/nginx/logs"
    # One nginx worker on the server core, the same for both clients: a 6-byte 200 from memory, keep-alive.
    cat > "$work/nginx/nginx.conf" <<NGINX
worker_processes 1;
worker_rlimit_nofile 19000;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 16384; multi_accept on; }
http {
    access_log off;
    keepalive_requests 10000000;
    keepalive_timeout 120s;
    client_body_temp_path $work/nginx/body;
    proxy_temp_path $work/nginx/proxy;
    fastcgi_temp_path $work/nginx/fastcgi;
    uwsgi_temp_path $work/nginx/uwsgi;
    scgi_temp_path $work/nginx/scgi;
    server {
        listen 127.0.0.1:$port backlog=16384 reuseport;
        location / { default_type text/plain; return 200 "hello\n"; }
    }
}
NGINX
    taskset -c $SERVER_CPU nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -g 'daemon off;' \
        >"$work/nginx/stdout.log" 2>&1 & nginx_pid=$!; pids+=($nginx_pid)
    wait_port "$port"
    url="http://127.0.0.1:$port/"
    for c in $CONNS; do
        for round in $(seq 1 "$ROUNDS"); do
            f="$work/raw-$c-$round"
            /usr/bin/time -f '%U %S %M' -o "$f-wrk.time" taskset -c $CLIENT_CPU \
                wrk -t 1 -c "$c" -d "${SECONDS_PER_RUN}s" "$url" > "$f-wrk.txt" 2>&1 || true
            /usr/bin/time -f '%U %S %M' -o "$f-cs.time" taskset -c $CLIENT_CPU \
                "$bin" raw-http --url "$url" --devices "$c" --workers 1 --duration "${SECONDS_PER_RUN}s" \
                > "$f-cs.json" 2> "$f-cs.err" || true
            # The same loop on HTTPWire, our own HTTP/1.1 client, beside libcurl (issue 33).
            /usr/bin/time -f '%U %S %M' -o "$f-wire.time" taskset -c $CLIENT_CPU \
                "$bin" raw-http --client wire --url "$url" --devices "$c" --workers 1 \
                --duration "${SECONDS_PER_RUN}s" > "$f-wire.json" 2> "$f-wire.err" || true
            rps() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests_per_second"])' "$1" \
                2>/dev/null || echo failed; }
            echo "connections $c round $round: wrk $(sed -n 's/^Requests\/sec: *//p' "$f-wrk.txt") req/s," \
                 "callstorm (libcurl) $(rps "$f-cs.json") req/s, callstorm (wire) $(rps "$f-wire.json") req/s"
        done
    done
    stop "$nginx_pid"
fi

# MARK: - devices: 50,000 idle vs the 4-device baseline
if wanted devices; then
    section "devices: 50,000 registered idle devices vs a 4-device baseline"
    for round in $(seq 1 "$ROUNDS"); do
        for name in baseline idle-50k; do
            rm -rf "$work/$name-$round"
            /usr/bin/time -f '%U %S %M' -o "$work/$name-$round.time" "$bin" run "Benchmarks/scenarios/$name.yaml" \
                --out "$work/$name-$round" --quiet > "$work/$name-$round.log" 2>&1 || true
            echo "$name round $round: peak RSS $(peak_kib "$work/$name-$round.time") KiB"
        done
    done
fi

# MARK: - recording overhead
if wanted metrics; then
    section "recording overhead: HdrHistogram / Recorder vs plain adds"
    .build/release/metrics-bench --rounds "$ROUNDS" --out "$work/metrics.json"
fi

# MARK: - history checker vs parsing the same file in Python
if wanted checker; then
    section "history checker: 1,000,000 operations"
    # Two rounds: each is ~10 s of checking on a quiet machine (three did not fit the 10-minute budget).
    for round in $(seq 1 $(( ROUNDS < 2 ? ROUNDS : 2 ))); do
        .build/release/checker-bench --out "$work/checker-$round.json" --keep "$work/history.jsonl" \
            > "$work/checker-$round.txt"
        # The peer parses the first 300,000 lines of the same file (its rate is lines/s, so a prefix suffices).
        python3 -c '
import itertools, json, sys, time
t = time.perf_counter()
n = 0
for line in itertools.islice(open(sys.argv[1]), 300000):
    json.loads(line); n += 1
print(n, time.perf_counter() - t)' "$work/history.jsonl" > "$work/pyjson-$round.txt"
        echo "round $round: $(tail -1 "$work/checker-$round.txt")"
        echo "round $round: python json.loads of the first lines (lines, seconds): $(cat "$work/pyjson-$round.txt")"
    done
    rm -f "$work/history.jsonl"
fi

# MARK: - the scale run: timer accuracy and delivered rate
if wanted scale; then
    section "scale: Scenarios/scale.yaml (10,000 devices, 500 calls/s, 30 s)"
    # The machine's own hiccups beside the run, so a stall in the lag can be set beside what the machine did.
    python3 scripts/bench-hiccup-probe.py "$work/scale.hiccups" & probe=$!
    /usr/bin/time -f '%U %S %M' -o "$work/scale.time" "$bin" run Scenarios/scale.yaml --out "$work/scale" --quiet \
        > "$work/scale.log" 2>&1 || true
    stop "$probe"
    tail -3 "$work/scale.log" || true
fi

# MARK: - race scenarios against the correct reference target
if wanted races; then
    section "races: Scenarios/races/*.yaml against the correct reference target"
    # A run with a violation exits 1, which the figures report, so it must not stop the script. 20 s each keeps
    # the suite inside 10 minutes; RACE_SECONDS=45 gives > 10,000 conflicting pairs in all.
    race_seconds=${RACE_SECONDS:-20}
    for scenario in Scenarios/races/*.yaml; do
        name=race-$(basename "$scenario" .yaml)
        rm -rf "$work/$name"
        "$bin" run "$scenario" --out "$work/$name" --duration "${race_seconds}s" --quiet > "$work/$name.log" 2>&1 \
            || true
    done
fi

# MARK: - end-to-end capacity: Scenarios/capacity.yaml ramps the embedded target until push_to_report p99 breaks
if wanted capacity; then
    section "capacity: Scenarios/capacity.yaml (ramp until push_to_report p99 over 5 s breaks 100 ms)"
    # CAPACITY_RUNS (2) runs, ~100 s each: one binary's knee moves by ~400 calls/s from run to run, more than a
    # round's gains, so the row gives the median and the range as the other rows do. Run 1 in capacity/, run N in
    # capacity-N/.
    for run in $(seq 1 "${CAPACITY_RUNS:-2}"); do
        dir=capacity
        [ "$run" -eq 1 ] || dir=capacity-$run
        rm -rf "${work:?}/$dir"
        # The machine's own stalls beside each run, as for the scale run: the row names the seconds in which a
        # real-time probe woke late beside callstorm's worst lag second (shown, not subtracted).
        python3 scripts/bench-hiccup-probe.py "$work/$dir.hiccups" & probe=$!
        "$bin" run Scenarios/capacity.yaml --out "$work/$dir" > "$work/$dir.log" 2>&1 || true
        stop "$probe"
        grep -E "^capacity:" "$work/$dir.log" || tail -3 "$work/$dir.log" || true
    done
fi

# MARK: - callstorm vs Locust and an aiohttp loop, calls per client CPU-second, against a standalone target
if wanted locust; then
    if python3 -c "import locust" 2>/dev/null; then
        section "callstorm vs Locust and aiohttp: register → start → join → end against callstorm target"
        source scripts/bench-peers.sh
        for round in $(seq 1 $(( ROUNDS < 2 ? ROUNDS : 2 ))); do
            peers_round "$round"
        done
    else
        echo '{"skipped": "locust is not installed (pip install locust)"}' > "$work/locust-skipped.json"
    fi
fi

# MARK: - idle wss sockets to standalone targets, a reconnect storm, vs a Python websockets pool (issue 21)
if wanted sockets; then
    section "sockets: ${WS_SOCKETS:-50000} idle wss sockets to callstorm target --tls, a reconnect storm, vs Python"
    CALLSTORM_BIN="$bin" WS_BENCH_BIN="$PWD/.build/release/ws-bench" SERVER_CPU=$SERVER_CPU CLIENT_CPU=$CLIENT_CPU \
        scripts/bench-sockets.sh "$work" || echo "bench-sockets.sh failed (see $work/sockets)"
fi

# MARK: - SIP: callstorm's SIP devices vs SIPp through one Kamailio, and the push wake-up path (issue 26)
if wanted sip; then
    section "sip: callstorm SIP devices vs SIPp (UAC + UAS) through one Kamailio, then the push wake-up path"
    # Its sip-<date> files are written below, once the section's span is closed, by the suite's load rule.
    CALLSTORM_BIN="$bin" SERVER_CPU=$SERVER_CPU CLIENT_CPU=$CLIENT_CPU SIP_RESULTS="" \
        SIP_SECONDS=${SIP_SECONDS:-$(( SECONDS_PER_RUN * 2 ))} scripts/bench-sip.sh "$work" \
        || echo "bench-sip.sh failed (see $work/sip)"
fi

# MARK: - the same SIP call in instructions (callgrind): immune to a busy machine
if wanted sip-instructions; then
    section "sip: instructions per call under callgrind, callstorm vs SIPp (UAC + UAS)"
    CALLSTORM_BIN="$bin" SIP_INSTRUCTIONS_JSON="$work/sip-instructions.json" scripts/bench-sip-instructions.sh \
        || echo '{"error": "bench-sip-instructions.sh failed"}' > "$work/sip-instructions.json"
fi

# MARK: - OpenTelemetry export's cost (issue 38): calls per client CPU-second, traces at 10 % and 100 % vs off
if wanted otlp; then
    section "otlp: calls per client CPU-second, OTLP traces at 10 % and 100 % vs export off"
    CALLSTORM_BIN="$bin" SERVER_CPU=$SERVER_CPU CLIENT_CPU=$CLIENT_CPU BENCH_ROUNDS=$ROUNDS \
        OTLP_SECONDS=${OTLP_SECONDS:-$(( SECONDS_PER_RUN * 2 ))} scripts/bench-otlp.sh "$work" \
        || echo "bench-otlp.sh failed (see $work/otlp)"
fi

# MARK: - media: RTP through Kamailio + rtpengine, callstorm vs SIPp, and what media costs a call (issue 34)
if wanted media; then
    section "media: RTP through Kamailio + rtpengine, callstorm vs SIPp rtp_stream; media.share 100 %, 10 %, none"
    CALLSTORM_BIN="$bin" SERVER_CPU=$SERVER_CPU CLIENT_CPU=$CLIENT_CPU BENCH_ROUNDS=$ROUNDS \
        MEDIA_SECONDS=${MEDIA_SECONDS:-$(( SECONDS_PER_RUN * 2 ))} scripts/bench-media.sh "$work" \
        || echo "bench-media.sh failed (see $work/media)"
fi

# MARK: - SIP over TLS and over WebSocket beside SIP over TCP, the hold call and the wake-up path (issue 35)
for transport in tls ws; do
    if wanted "sip-$transport"; then
        section "sip-$transport: the SIP hold call and the push wake-up path over $transport vs TCP (no SIPp peer)"
        CALLSTORM_BIN="$bin" SERVER_CPU=$SERVER_CPU CLIENT_CPU=$CLIENT_CPU BENCH_ROUNDS=$ROUNDS \
            SIPT_SECONDS=${SIPT_SECONDS:-$(( SECONDS_PER_RUN * 2 ))} scripts/bench-sip-transports.sh "$work" \
            "$transport" || echo "bench-sip-transports.sh failed (see $work/sip-$transport)"
    fi
done

# MARK: - the registration storm: Kamailio restarted under 2,000 awake TLS devices (issue 35)
if wanted sip-storm; then
    section "sip-storm: Kamailio restarted under ${STORM_DEVICES:-2000} awake TLS devices (no peer)"
    CALLSTORM_BIN="$bin" scripts/bench-sip-storm.sh "$work/sip-storm" || echo "bench-sip-storm.sh failed (see $work/sip-storm)"
fi

close_span
section "writing results"
cat /proc/loadavg > "$work/loadavg"
[ ! -d "$work/sip" ] || python3 scripts/bench_results_sip.py report "$work" "$out" "$date" \
    || echo "bench_results_sip.py could not write the sip-$date files"
python3 scripts/bench-results.py "$work" "$out" "$date" "$ROUNDS" "$SECONDS_PER_RUN" "$CONNS" \
    "$(( $(date +%s) - suite_start ))"
scripts/bench-table.sh
