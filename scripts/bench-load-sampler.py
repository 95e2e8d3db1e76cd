#!/usr/bin/env python3
"""Samples the machine's load with the benchmark's own processes taken out, so a section can be judged on what
other work did while it ran ("load < 1 before and during, the bench itself aside").

usage: bench-load-sampler.py PIDFILE OUT   (runs until SIGTERM; PIDFILE lists the bench's PIDs, one a line,
re-read at every sample), or bench-load-sampler.py --tree PID OUT (the bench's processes are PID and all its
descendants, found anew at every sample: how `make bench` counts every section's servers and clients without
listing them). Every 0.5 s it appends `epoch_ms loadavg1 running ours` to OUT: the runnable tasks the kernel counts
in the load average (procs_running + procs_blocked of /proc/stat, less this sampler itself) and how many of them
are threads of the bench's processes. `running - ours` is the load the rest of the machine adds."""
import os
import signal
import sys
import time

TREE = sys.argv[1] == "--tree"
pidfile, out = sys.argv[-2:]
stop = False


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)


def runnable():
    running = blocked = 0
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("procs_running"):
                running = int(line.split()[1])
            elif line.startswith("procs_blocked"):
                blocked = int(line.split()[1])
    return running + blocked - 1  # this sampler is running while it reads


def tree(root):
    """PID `root` and its descendants, this sampler aside (runnable() already left it out)."""
    children = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                parent = f.read().rsplit(")", 1)[1].split()[1]
        except (OSError, IndexError):
            continue
        children.setdefault(parent, []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return [p for p in found if p != str(os.getpid())]


def ours():
    try:
        pids = tree(pidfile) if TREE else [p.strip() for p in open(pidfile) if p.strip()]
    except OSError:
        return 0
    n = 0
    for pid in pids:
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
                n += state in ("R", "D")
        except OSError:
            continue
    return n


with open(out, "a") as f:
    while not stop:
        load1 = open("/proc/loadavg").read().split()[0]
        f.write(f"{int(time.time() * 1000)} {load1} {runnable()} {ours()}\n")
        f.flush()
        time.sleep(0.5)
