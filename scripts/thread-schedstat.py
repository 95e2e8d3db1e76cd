#!/usr/bin/env python3
"""Who waits for whom, per thread of one process (docs/BENCHMARKS.md, "The embedded target's threads below the
workers"): CPU, run-queue wait and context switches from /proc/PID/task/TID/{schedstat,status,stat}.

usage: thread-schedstat.py sample PID OUT.json       one sample of every thread (name, policy, nice, counters)
       thread-schedstat.py diff A.json B.json CALLS  per thread between two samples, per call where it helps

Take one sample once the load runs and one before it ends (the threads named cs.worker.N, cs.target.0,
cs.target.push, cs.gateway.0, cs.background). schedstat's second field is the time spent runnable but waiting for
a core; involuntary switches count the times another thread took the core. Timed figures depend on the machine's
load; the switches per call and the ratios between threads much less."""
import json
import os
import sys


def sample(pid, out):
    rows = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        base = f"/proc/{pid}/task/{tid}"
        try:
            comm = open(base + "/comm").read().strip()
            cpu, wait, slices = map(int, open(base + "/schedstat").read().split())
            status = dict(line.split(":", 1) for line in open(base + "/status") if ":" in line)
            stat = open(base + "/stat").read()
        except OSError:
            continue  # the thread ended meanwhile
        fields = stat[stat.rindex(")") + 2:].split()
        rows[tid] = dict(comm=comm, cpu=cpu, wait=wait, slices=slices,
                         vol=int(status["voluntary_ctxt_switches"]), invol=int(status["nonvoluntary_ctxt_switches"]),
                         nice=int(fields[16]), policy=int(fields[38]))
    with open(out, "w") as f:
        json.dump(rows, f)


def diff(first, second, calls):
    a, b, calls = json.load(open(first)), json.load(open(second)), float(calls)
    print(f"{'tid':>8} {'name':16} {'pol':>3} {'ni':>3} {'cpu ms':>8} {'wait ms':>8} {'wait/cpu':>8} "
          f"{'cpu us/call':>11} {'wait us/call':>12} {'vol/call':>8} {'invol/call':>10}")
    for tid in sorted(b, key=int):
        if tid not in a:
            continue
        x, y = a[tid], b[tid]
        cpu, wait = (y["cpu"] - x["cpu"]) / 1e6, (y["wait"] - x["wait"]) / 1e6
        if cpu < 1:
            continue
        print(f"{tid:>8} {y['comm']:16} {y['policy']:>3} {y['nice']:>3} {cpu:8.0f} {wait:8.0f} {wait / cpu:8.2f} "
              f"{cpu * 1000 / calls:11.1f} {wait * 1000 / calls:12.1f} {(y['vol'] - x['vol']) / calls:8.2f} "
              f"{(y['invol'] - x['invol']) / calls:10.3f}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "sample":
        sample(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "diff":
        diff(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
