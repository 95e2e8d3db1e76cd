#!/usr/bin/env python3
"""The machine's own hiccups beside a run (the idea of cyclictest and jHiccup): sleeps 1 ms in a loop and logs every
wake-up that came more than 1 ms late, so a stall in callstorm's scheduler lag can be set beside what the machine did
to a process that does nothing at the same instant.

usage: bench-hiccup-probe.py OUT   (runs until SIGTERM)

It asks for real-time priority (SCHED_FIFO 50, allowed as root or with CAP_SYS_NICE): then no other process's
threads can delay it, only the machine itself (the hypervisor taking the vCPU, interrupts, the kernel). Without that
right it runs at normal priority and says so. OUT gets `# priority fifo|normal`, one `epoch_ms late_ms` line per late
wake-up, and `# loops N max_ms M` at the end."""
import os
import signal
import sys
import time

out = open(sys.argv[1], "w")
stop = False


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
    priority = "fifo"
except (PermissionError, OSError):
    priority = "normal"
out.write(f"# priority {priority}\n")
out.flush()
loops, worst = 0, 0.0
while not stop:
    start = time.monotonic()
    time.sleep(0.001)
    late = (time.monotonic() - start - 0.001) * 1000
    loops += 1
    worst = max(worst, late)
    if late > 1:
        out.write(f"{time.time() * 1000:.0f} {late:.2f}\n")
out.write(f"# loops {loops} max_ms {worst:.2f}\n")
out.close()
