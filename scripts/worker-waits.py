#!/usr/bin/env python3
"""From `perf script` of sched_switch/sched_waking (-a): per worker thread, how long each wake-up waited for a
core and who held the cores meanwhile, how long it was kept off after a preemption and by whom, and its run
stretches (switch-in after a sleep to the next sleep). docs/BENCHMARKS.md, "The workers at SCHED_FIFO".

usage: perf record -a -e sched:sched_switch,sched:sched_waking -o P -- sleep 8   (while callstorm runs)
       for t in /proc/PID/task/*; do echo "$(basename $t) $(cat $t/comm)"; done > THREADS
       perf script -i P | worker-waits.py - THREADS"""
import re, sys, collections
threads = {}
for line in open(sys.argv[2]):
    tid, comm = line.split(None, 1); threads[int(tid)] = comm.strip()
workers = {t for t, c in threads.items() if c.startswith("cs.worker")}
ours = set(threads)
sw = re.compile(r"\[(\d+)\]\s+([\d.]+):\s+sched:sched_switch:\s+prev_comm=(.*?) prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)")
wk = re.compile(r"\[(\d+)\]\s+([\d.]+):\s+sched:sched_waking:\s+comm=(.*?) pid=(\d+) prio=\d+ target_cpu=(\d+)")
oncpu = {}      # cpu -> (pid, comm, since)
waking = {}     # worker -> time woken
preempted = {}  # worker -> time preempted
stretch_start = {}
waits = collections.Counter(); wait_list = []; pre_list = []; stretches = []
holders_wake = collections.Counter(); holders_pre = collections.Counter()
def name(pid, comm):
    return threads.get(pid, "other:" + comm.split("/")[0][:12])
for line in sys.stdin:
    m = sw.search(line)
    if m:
        cpu, t = int(m.group(1)), float(m.group(2))
        prev, pstate, nxt = int(m.group(4)), m.group(5), int(m.group(7))
        if prev in workers:
            if pstate.startswith("R"):
                preempted[prev] = (t, name(nxt, m.group(6)))
            else:
                if prev in stretch_start:
                    stretches.append((t - stretch_start.pop(prev), prev, t))
        if nxt in workers:
            if nxt in waking:
                w, held = waking.pop(nxt)
                d = t - w
                wait_list.append(d)
                if d > 0.0005:
                    for h in held: holders_wake[h] += 1
                    holders_wake["(prev on this cpu) " + name(prev, m.group(3))] += 1
                stretch_start[nxt] = t
            elif nxt in preempted:
                p, by = preempted.pop(nxt)
                d = t - p; pre_list.append(d)
                if d > 0.0005: holders_pre[by] += 1
        oncpu[cpu] = (nxt, m.group(6), t)
        continue
    m = wk.search(line)
    if m:
        t, pid = float(m.group(2)), int(m.group(4))
        if pid in workers and pid not in waking:
            waking[pid] = (t, [name(p, c) for p, c, _ in oncpu.values()])
def summary(xs, label):
    xs = sorted(xs)
    if not xs: print(label, "none"); return
    q = lambda f: xs[min(len(xs) - 1, int(f * len(xs)))] * 1e3
    print(f"{label}: n={len(xs)} p50={q(.5):.3f} p90={q(.9):.3f} p99={q(.99):.3f} max={xs[-1]*1e3:.2f} ms; "
          f">0.5ms {sum(1 for x in xs if x > .0005)}, >1ms {sum(1 for x in xs if x > .001)}")
summary(wait_list, "wake-up to on-cpu")
summary(pre_list, "preempted to back on")
summary([s for s, _, _ in stretches], "run stretch (wake to sleep)")
print("cores' holders when a wake waited > 0.5 ms:", holders_wake.most_common(12))
print("who preempted a worker kept > 0.5 ms:", holders_pre.most_common(12))
print("longest stretches (ms, tid, t):", [(round(s*1e3, 2), p, round(t, 3)) for s, p, t in sorted(stretches)[-8:]])
