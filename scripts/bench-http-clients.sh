#!/bin/bash
# callstorm's HTTP calls per client CPU-second through libcurl and through its own client (`target.client: curl |
# wire`), alternating, against one `callstorm target` run on core 1, callstorm on core 0 (docs/BENCHMARKS.md,
# "Devices"). Not a make bench section: no load rule, so its figures are only comparable with each other.
# ROUNDS (2), RATES ("400 800" calls/s), SECS (10 per run), BIN (.build/release/callstorm), WORK (a temp dir).
set -u
cd "$(dirname "$0")/.."
bin=${BIN:-$PWD/.build/release/callstorm}
work=${WORK:-$(mktemp -d /tmp/callstorm-http-clients.XXXXXX)}; mkdir -p "$work"
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
tport=$(port); gport=$(port)
taskset -c 1 "$bin" target --listen 127.0.0.1:$tport --apns-url http://127.0.0.1:$gport > $work/target.log 2>&1 &
tpid=$!
for i in $(seq 50); do (echo > /dev/tcp/127.0.0.1/$tport) 2>/dev/null && break; sleep 0.1; done
RATES=${RATES:-"400 800"}; ROUNDS=${ROUNDS:-2}; SECS=${SECS:-10}
for rate in $RATES; do for r in $(seq $ROUNDS); do for client in curl wire; do
    n=$client-$rate-$r
    sed -e "s/127.0.0.1:0/127.0.0.1:$gport/" -e "s|rate: [0-9]*/s|rate: $rate/s|" \
        -e "s/^target: {/target: { client: $client,/" Benchmarks/scenarios/vs-locust.yaml > $work/$n.yaml
    /usr/bin/time -f '%U %S %e' -o $work/$n.time taskset -c 0 "$bin" run $work/$n.yaml \
        --target http://127.0.0.1:$tport --workers 1 --duration ${SECS}s --out $work/$n --quiet > $work/$n.log 2>&1
    python3 - $work $n <<'PY'
import json, sys
work, n = sys.argv[1:]
u, s, e = map(float, open(f"{work}/{n}.time").read().split()[-3:])
c = json.load(open(f"{work}/{n}/summary.json"))["counters"]
done = c.get("calls.completed", 0)
errs = {k: v for k, v in c.items() if k.startswith("errors.")}
print(f"{n}: completed {done} of {c.get('calls.planned')}, cpu {u+s:.2f} s (user {u:.2f} sys {s:.2f}), "
      f"{done/(u+s):.0f} calls per client CPU-second, errors {errs}")
PY
done; done; done
kill $tpid; wait $tpid 2>/dev/null
