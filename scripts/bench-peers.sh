# Sourced by scripts/bench.sh (its `locust` section; uses its bin, work, SERVER_CPU, CLIENT_CPU, SECONDS_PER_RUN,
# pids, free_port, wait_port and stop). One round of the calls-per-client-CPU-second comparison (issue 20): the
# flow register → start → join → end, every client pinned to the client core, each run against a fresh standalone
# `callstorm target` on the server core, each measured by GNU time:
#   1. Locust FastHttpUser, 50 users, as fast as the target answers, for PEER_SECONDS;
#   2. callstorm at the rate Locust delivered in this round (its completed calls ÷ PEER_SECONDS);
#   3. callstorm at its own maximum: a ladder of planned rates (BENCH_MAX_RATE, 2,000 calls/s, then × 1.5 while a
#      run holds, at most three runs; once ÷ 1.5 if the first does not; then one rung halfway between the highest
#      rate held and the lowest missed), a run holding when it completed ≥ 99 % of its planned calls with scheduler
#      lag p99 ≤ 10 ms (scripts/bench_results_peers.py held);
#   4. a Python asyncio loop over aiohttp, 50 users (Benchmarks/aiohttp_peer.py).
# Files per round R: locust-R.{json,time,log}, cs-same-R{,.time,.rate,.yaml}, cs-max-R-K{…} (K = 1, 2, …),
# aiohttp-R.{json,time}; bench-results.py turns them into rows. callstorm's devices use its own HTTP/1.1 client
# (`target.client: wire`, the default since issue 33); BENCH_HTTP_CLIENT=curl runs them through libcurl instead.

PEER_SECONDS=$(( SECONDS_PER_RUN * 2 ))
PEER_USERS=50

# start_target NAME: a fresh reference target on the server core for one client run; sets tport, gport and tpid.
start_target() {
    tport=$(free_port)
    gport=$(free_port)
    while [ "$gport" = "$tport" ]; do gport=$(free_port); done
    taskset -c "$SERVER_CPU" "$bin" target --listen "127.0.0.1:$tport" --apns-url "http://127.0.0.1:$gport" \
        > "$work/target-$1.log" 2>&1 & tpid=$!; pids+=("$tpid")
    wait_port "$tport"
}

# cs_run NAME RATE: callstorm's vs-locust flow at a planned RATE calls/s for PEER_SECONDS; sets `held` to the
# verdict ("held: …" or "did not hold: …") and prints it.
cs_run() {
    start_target "$1"
    sed -e "s/127.0.0.1:0/127.0.0.1:$gport/" -e "s|rate: [0-9]*/s|rate: $2/s|" \
        -e "s/^target: {/target: { client: ${BENCH_HTTP_CLIENT:-wire},/" \
        Benchmarks/scenarios/vs-locust.yaml > "$work/$1.yaml"
    echo "$2" > "$work/$1.rate"
    rm -rf "${work:?}/$1"
    /usr/bin/time -f '%U %S %M %e %w %c' -o "$work/$1.time" taskset -c "$CLIENT_CPU" \
        "$bin" run "$work/$1.yaml" --target "http://127.0.0.1:$tport" --workers 1 --duration "${PEER_SECONDS}s" \
        --out "$work/$1" --quiet > "$work/$1.log" 2>&1 || true
    stop "$tpid"
    held=$(python3 scripts/bench_results_peers.py held "$work" "$1" "$PEER_SECONDS")
    echo "  callstorm planned $2 calls/s ($1): $held"
}

# max_ladder ROUND: callstorm's maximum, as the header says, then one rung halfway between the highest planned rate
# that held and the lowest that did not (BENCH_MAX_REFINE=1, the default; 0 leaves it out): steps of 1.5 know the
# maximum only to within a factor of 1.5, and near the client core's saturation a rung's verdict is close to chance
# (2,000 calls/s on 2026-12-06: each binary held it in one of four runs), so a miss there would otherwise report
# the rung below as the maximum.
max_ladder() {
    local rate=${BENCH_MAX_RATE:-2000} k=1 good=0 bad=0
    cs_run "cs-max-$1-$k" "$rate"
    if [[ $held == held* ]]; then
        good=$rate
        while [ $k -lt 3 ] && [[ $held == held* ]]; do
            k=$(( k + 1 )); rate=$(( rate * 3 / 2 ))
            cs_run "cs-max-$1-$k" "$rate"
            if [[ $held == held* ]]; then good=$rate; else bad=$rate; fi
        done
    else
        bad=$rate; k=2; rate=$(( rate * 2 / 3 ))
        cs_run "cs-max-$1-$k" "$rate"
        [[ $held == held* ]] && good=$rate
    fi
    if [ "${BENCH_MAX_REFINE:-1}" = 1 ] && [ "$good" -gt 0 ] && [ "$bad" -gt 0 ]; then
        k=$(( k + 1 ))
        cs_run "cs-max-$1-$k" $(( (good + bad) / 2 ))
    fi
}

# peers_round ROUND: the four runs of one round, in the order above.
peers_round() {
    local r=$1 lrate
    start_target "locust-$r"
    /usr/bin/time -f '%U %S %M %e %w %c' -o "$work/locust-$r.time" taskset -c "$CLIENT_CPU" \
        locust -f Benchmarks/locustfile.py --headless -u $PEER_USERS -r $PEER_USERS -t "${PEER_SECONDS}s" \
        --host "http://127.0.0.1:$tport" --only-summary --calls-out "$work/locust-$r.json" \
        > "$work/locust-$r.log" 2>&1 || true
    stop "$tpid"
    # Locust's delivered rate: its completed calls ÷ its run time (400/s if it wrote nothing).
    lrate=$(python3 scripts/bench_results_peers.py rate "$work/locust-$r.json" "$PEER_SECONDS" 2>/dev/null || echo 400)
    echo "round $r: locust $(cat "$work/locust-$r.json" 2>/dev/null) in $(cpu_seconds "$work/locust-$r.time") CPU s," \
         "$lrate calls/s delivered"
    cs_run "cs-same-$r" "$lrate"
    max_ladder "$r"
    if python3 -c "import aiohttp" 2>/dev/null; then
        start_target "aiohttp-$r"
        /usr/bin/time -f '%U %S %M %e %w %c' -o "$work/aiohttp-$r.time" taskset -c "$CLIENT_CPU" \
            python3 Benchmarks/aiohttp_peer.py "http://127.0.0.1:$tport" $PEER_USERS "$PEER_SECONDS" \
            "$work/aiohttp-$r.json" > "$work/aiohttp-$r.log" 2>&1 || true
        stop "$tpid"
        echo "  aiohttp: $(cat "$work/aiohttp-$r.json" 2>/dev/null) in $(cpu_seconds "$work/aiohttp-$r.time") CPU s"
    else
        echo '{"skipped": "aiohttp is not installed (pip install aiohttp)"}' > "$work/aiohttp-skipped.json"
    fi
}
