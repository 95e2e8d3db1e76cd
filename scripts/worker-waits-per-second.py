#!/usr/bin/env python3
"""Per 1-s bucket of a `perf -k mono` sched trace: the workers' worst wake-to-core wait and run stretch, with
who held the core (prev on the worker's CPU) for waits over 1 ms. docs/BENCHMARKS.md, "The workers at SCHED_FIFO".

usage: perf record -a -k mono -e sched:sched_switch,sched:sched_waking ...; perf script | worker-waits-per-second.py THREADS"""
import re, sys, collections
threads = {int(l.split()[0]): l.split(None, 1)[1].strip() for l in open(sys.argv[1])}
workers = {t for t, c in threads.items() if c.startswith("cs.worker")}
sw = re.compile(r"\[(\d+)\]\s+([\d.]+):\s+sched:sched_switch:\s+prev_comm=(.*?) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)")
wk = re.compile(r"\[(\d+)\]\s+([\d.]+):\s+sched:sched_waking:\s+comm=(.*?) pid=(\d+) prio=\d+ target_cpu=(\d+)")
waking, start = {}, {}
b = collections.defaultdict(lambda: [0.0, 0, 0.0, 0, collections.Counter(), 0])
for line in sys.stdin:
    m = sw.search(line)
    if m:
        t, prev, st, nxt = float(m.group(2)), int(m.group(4)), m.group(5), int(m.group(7))
        if prev in workers and not st.startswith("R") and prev in start:
            d = t - start.pop(prev); r = b[int(t)]
            r[2] = max(r[2], d); r[3] += d > 0.001
        if nxt in workers and nxt in waking:
            w = waking.pop(nxt); d = t - w; r = b[int(w)]
            r[0] = max(r[0], d); r[1] += d > 0.001; r[5] += 1
            if d > 0.001: r[4][m.group(3)[:14] + ("(ours)" if prev in threads else "")] += 1
            start[nxt] = t
        continue
    m = wk.search(line)
    if m and int(m.group(4)) in workers and int(m.group(4)) not in waking:
        waking[int(m.group(4))] = float(m.group(2))
print("sec   wakes  maxwait  >1ms  maxstretch >1ms  holders of >1ms waits")
for s in sorted(b):
    r = b[s]
    print(f"{s} {r[5]:6d} {r[0]*1e3:8.2f} {r[1]:5d} {r[2]*1e3:10.2f} {r[3]:4d}  {dict(r[4].most_common(4))}")
