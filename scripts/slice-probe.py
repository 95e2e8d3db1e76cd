#!/usr/bin/env python3
"""How late a thread that sleeps 1 ms at a time wakes while a busy thread holds its core, by the sleeper's requested
EEVDF slice (docs/BENCHMARKS.md, "The workers' short slice"): the mechanism behind ThreadScheduling's `sliceMicros`,
shown without the capacity run.

usage: slice-probe.py [SAMPLES] [CPU] [ROUNDS] [batch|other]     (500 samples, CPU 0, 6 rounds, batch)

A spinner process (SCHED_BATCH, the embedded target's policy, or SCHED_OTHER as the gateway's loop; default slice) and the sleeper share one CPU
(sched_setaffinity); the sleeper runs at SCHED_OTHER with the kernel's default slice, then with 200 us (the
workers' default), then with 100 us, and again, ROUNDS times (so load from elsewhere falls on every setting alike).
Printed per setting over all rounds: wake-up lateness p50/p99/max (ms) and the share of wake-ups later than 1 ms.
Other load on that CPU adds to every row; compare the rows, not the absolutes."""
import ctypes
import os
import signal
import struct
import sys
import time

SYS_SCHED_SETATTR, SYS_SCHED_GETATTR = 314, 315  # x86_64
libc = ctypes.CDLL(None, use_errno=True)


def set_slice(ns):
    """sched_setattr(0, ...) with the current policy and nice and sched_runtime = ns (0: the default)."""
    buf = ctypes.create_string_buffer(56)
    if libc.syscall(SYS_SCHED_GETATTR, 0, buf, 56, 0) != 0:
        raise OSError(ctypes.get_errno(), "sched_getattr")
    size, policy, flags, nice, prio, runtime, deadline, period = struct.unpack_from("IIQiIQQQ", buf)
    struct.pack_into("IIQiIQQQ", buf, 0, 56, policy, 0, nice, prio, ns, 0, 0)
    if libc.syscall(SYS_SCHED_SETATTR, 0, buf, 0) != 0:
        raise OSError(ctypes.get_errno(), "sched_setattr")
    libc.syscall(SYS_SCHED_GETATTR, 0, buf, 56, 0)
    return struct.unpack_from("IIQiIQQQ", buf)[5]


def spinner(cpu, policy):
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {cpu})
        os.sched_setscheduler(0, policy, os.sched_param(0))
        while True:
            pass
    return pid


def probe(samples, late):
    for _ in range(samples):
        due = time.monotonic_ns() + 1_000_000
        time.sleep(0.001)
        late.append((time.monotonic_ns() - due) / 1e6)


def stats(late):
    late = sorted(late)
    return late[len(late) // 2], late[int(len(late) * 0.99)], late[-1], sum(1 for x in late if x > 1) / len(late)


def main():
    samples = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    cpu = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    policy = os.SCHED_OTHER if len(sys.argv) > 4 and sys.argv[4] == "other" else os.SCHED_BATCH
    os.sched_setaffinity(0, {cpu})
    libc.prctl(29, 1, 0, 0, 0)  # PR_SET_TIMERSLACK 1 ns, as the workers
    spin = spinner(cpu, policy)
    try:
        time.sleep(0.2)
        settings = (0, 200_000, 100_000)
        late = {ns: [] for ns in settings}
        labels = {}
        for _ in range(rounds):
            for ns in settings:
                got = set_slice(ns)
                labels[ns] = f"{got / 1000:.0f} us" + (" (dflt)" if ns == 0 else "")
                probe(samples, late[ns])
        print(f"{'sleeper slice':>14} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'> 1 ms':>7}")
        for ns in settings:
            p50, p99, worst, over = stats(late[ns])
            print(f"{labels[ns]:>14} {p50:7.3f} {p99:7.3f} {worst:7.3f} {over:7.1%}")
    finally:
        os.kill(spin, signal.SIGKILL)
        os.waitpid(spin, 0)


if __name__ == "__main__":
    main()
