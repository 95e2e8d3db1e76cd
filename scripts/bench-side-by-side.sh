#!/usr/bin/env bash
# Side by side, old (60fef96) vs new (main) binary: the vs-locust flow's calls per client CPU-second against one
# standalone target (new binary, server core 1; client core 0), and scale.yaml's scheduler lag. Rounds alternate.
set -u
old=${OLD_BIN:?the old callstorm binary}; new=${NEW_BIN:-$PWD/.build/release/callstorm}
w=/tmp/sbs-bench; rm -rf $w; mkdir -p $w
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
for round in 1 2 3; do
  for side in old new; do
    bin=${!side}
    tport=$(free_port); gport=$(free_port)
    taskset -c 1 $new target --listen 127.0.0.1:$tport --apns-url http://127.0.0.1:$gport > $w/target-$side-$round.log 2>&1 & tpid=$!
    for i in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$tport) 2>/dev/null && break; sleep 0.1; done
    sed "s/127.0.0.1:0/127.0.0.1:$gport/" $PWD/Benchmarks/scenarios/vs-locust.yaml > $w/vs.yaml
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f '%U %S' -o $w/$side-$round.time taskset -c 0 $bin run $w/vs.yaml --target http://127.0.0.1:$tport --workers 1 --out $w/$side-$round --quiet > /dev/null 2>&1
    kill $tpid; wait $tpid 2>/dev/null
    python3 - "$w/$side-$round" "$w/$side-$round.time" "$side" "$round" "$load" <<'PY'
import json,sys
d,t,side,r,load=sys.argv[1:]
s=json.load(open(d+'/summary.json')); c=s['counters']
u,sy=map(float,open(t).read().split()[-2:]); cpu=u+sy
done=c.get('calls.completed',0)
lag=s['metrics'].get('scheduler_lag',{})
print(f"vs-locust round {r} {side}: {done} calls completed, {cpu:.2f} CPU-s, {done/cpu:.0f} calls/CPU-s, load before {load}")
PY
  done
done
for round in 1 2; do
  for side in old new; do
    bin=${!side}
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f '%U %S' -o $w/scale-$side-$round.time $bin run $PWD/Scenarios/scale.yaml --out $w/scale-$side-$round --quiet > /dev/null 2>&1
    python3 - "$w/scale-$side-$round" "$w/scale-$side-$round.time" "$side" "$round" "$load" <<'PY'
import json,sys
d,t,side,r,load=sys.argv[1:]
s=json.load(open(d+'/summary.json')); m=s['metrics']['scheduler_lag']
u,sy=map(float,open(t).read().split()[-2:])
print(f"scale round {r} {side}: scheduler_lag p99 {m.get('p99Micros', m.get('p99'))} max {m.get('maxMicros', m.get('max'))}, {u+sy:.1f} CPU-s, load before {load}")
PY
  done
done
uptime
