#!/usr/bin/env python3
"""Per thread, per call completed: system calls by name, voluntary and involuntary switches, minor page faults.

usage: perf script -F tid,comm,event,trace | scripts/perf-per-thread.py RUN/summary.json [UNIT_COUNT]

Reads `perf record -e raw_syscalls:sys_enter,sched:sched_switch,minor-faults -c 1` (scripts/perf-syscalls.sh with
THREADS=1). A switch is charged to the thread it switches out; it is voluntary when that thread was not runnable
(it went to sleep: `prev_state` other than R), involuntary when it was preempted. System call numbers are named from
the kernel's unistd_64.h. The divisor is calls.completed from the run's summary, or UNIT_COUNT when given.
"""
import json
import re
import sys
from collections import Counter, defaultdict


def syscall_names():
    names = {}
    try:
        for line in open("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"):
            m = re.match(r"#define __NR_(\w+)\s+(\d+)", line)
            if m:
                names[int(m.group(2))] = m.group(1)
    except OSError:
        pass
    return names


def main():
    summary = json.load(open(sys.argv[1]))
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else summary["counters"].get("calls.completed", 0)
    names = syscall_names()
    calls_by_thread = defaultdict(Counter)
    switches = defaultdict(Counter)
    faults = Counter()
    comm_of = {}
    line_re = re.compile(r"^\s*(.+?)\s+(\d+)\s+([\w:-]+):\s*(.*)$")
    for line in sys.stdin:
        m = line_re.match(line)
        if not m:
            continue
        comm, tid, event, trace = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        comm_of[tid] = comm
        if event == "raw_syscalls:sys_enter":
            nr = re.match(r"NR (-?\d+)", trace)
            if nr:
                calls_by_thread[tid][names.get(int(nr.group(1)), "nr" + nr.group(1))] += 1
        elif event == "sched:sched_switch":
            state = re.search(r"prev_state=(\S+)", trace)
            voluntary = state is not None and not state.group(1).startswith("R")
            switches[tid]["voluntary" if voluntary else "involuntary"] += 1
        elif event == "minor-faults":
            faults[tid] += 1
    per = max(1, calls)
    tids = sorted(set(calls_by_thread) | set(switches) | set(faults),
                  key=lambda t: -(sum(calls_by_thread[t].values()) + sum(switches[t].values()) + faults[t]))
    total_calls = Counter()
    total_switches = Counter()
    print(f"  per thread, per call ({calls} calls completed; perf record -e raw_syscalls:sys_enter,"
          "sched:sched_switch,minor-faults -c 1):")
    for tid in tids:
        # perf's own child before it execs the program, and taskset: not callstorm's.
        if comm_of[tid] in ("perf", "perf-exec", "taskset"):
            continue
        c = calls_by_thread[tid]
        total_calls.update(c)
        total_switches.update(switches[tid])
        kinds = ", ".join(f"{name} {n / per:.3f}" for name, n in c.most_common(12))
        print(f"   {comm_of[tid]:18s} tid {tid:7d}: system calls {sum(c.values()) / per:8.3f} ({kinds}); "
              f"switches voluntary {switches[tid]['voluntary'] / per:.3f}, involuntary "
              f"{switches[tid]['involuntary'] / per:.3f}; minor faults {faults[tid] / per:.3f}")
    kinds = ", ".join(f"{name} {n / per:.3f}" for name, n in total_calls.most_common(16))
    print(f"   all threads: system calls {sum(total_calls.values()) / per:.3f} ({kinds}); switches voluntary "
          f"{total_switches['voluntary'] / per:.3f}, involuntary {total_switches['involuntary'] / per:.3f}; "
          f"minor faults {sum(f for t, f in faults.items() if comm_of[t] not in ('perf', 'perf-exec', 'taskset')) / per:.3f}")


if __name__ == "__main__":
    main()
