#!/usr/bin/env bash
# usage: scripts/cpu-budget.sh BIN OUTDIR — the vs-locust flow's client under perf (dwarf call graphs), the target
# standalone on the other core; prints the CPU budget (scripts/cpu-budget.py). Issue 20; docs/results/issue20-cpu-budget.md.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$1; d=$2; rm -rf $d; mkdir -p $d; cd $d
free_port() { python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
tport=$(free_port); gport=$(free_port)
taskset -c 1 $bin target --listen 127.0.0.1:$tport --apns-url http://127.0.0.1:$gport > target.log 2>&1 & tpid=$!
for i in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$tport) 2>/dev/null && break; sleep 0.1; done
sed "s/127.0.0.1:0/127.0.0.1:$gport/" $root/Benchmarks/scenarios/vs-locust.yaml > vs.yaml
/usr/bin/time -f '%U %S' -o time taskset -c 0 perf record -F 499 --call-graph dwarf,16384 -o c.data -- $bin run vs.yaml --target http://127.0.0.1:$tport --workers 1 --out run --quiet >/dev/null 2>&1
kill $tpid; wait $tpid 2>/dev/null
calls=$(python3 -c "import json;print(json.load(open('run/summary.json'))['counters']['calls.completed'])")
perf script -i c.data -F comm,tid,time,ip,sym,dso 2>/dev/null > c.txt
python3 $root/scripts/cpu-budget.py $calls < c.txt
