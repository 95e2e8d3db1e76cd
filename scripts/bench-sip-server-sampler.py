#!/usr/bin/env python3
"""Samples the bench's Kamailio while one client run goes, so the SIP section can say which side set a rung's limit
(issue 33: "say in the results which side set the limit"): the server core's share Kamailio used, where its
processes waited, and the datagrams its UDP socket dropped or held unread.

usage: bench-sip-server-sampler.py KAMAILIO_PID UDP_PORT OUT [LOG]   (runs until SIGTERM, then writes OUT as JSON)

Every 20 ms it reads each Kamailio process's state and wait channel (/proc/PID/stat, /proc/PID/wchan), what it
waits to receive on (/proc/PID/syscall) and the UDP socket's receive queue (/proc/net/udp). The SIP workers are the
processes seen waiting to receive on that socket (`__skb_wait_for_more_packets`); one blocked on a synchronous push
waits in poll (`poll_schedule_timeout`) for the gateway instead. At the end: Kamailio's CPU-seconds over the run
(user + system of every process) against the wall time; the SIP workers' samples by state (waiting for a datagram,
running, waiting elsewhere); the receive queue's largest backlog and the socket's drops over the run (a queue that
grows and drops means the server did not keep up). With LOG (Kamailio's log), the lines it wrote during the run
where it could not allocate memory (shared or private: the bench started it too small) and its ERROR lines in all."""
import json
import os
import signal
import sys
import threading
import time

kpid, port, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
log = sys.argv[4] if len(sys.argv) > 4 else None
TICK = os.sysconf("SC_CLK_TCK")
# SIGTERM ends the sampling; the summary is written after it.
stopped = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stopped.set())


def processes():
    try:
        with open(f"/proc/{kpid}/task/{kpid}/children") as f:
            return [kpid] + [int(p) for p in f.read().split()]
    except OSError:
        return [kpid]


def stat(pid):
    """(state, user + system ticks) of one process; None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return fields[0], int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def wchan(pid):
    try:
        with open(f"/proc/{pid}/wchan") as f:
            return f.read().strip() or "-"
    except OSError:
        return "?"


def udp_socket():
    """(receive queue bytes, drops, inode) of the socket bound to 127.0.0.1:port."""
    want = f"0100007F:{port:04X}"
    with open("/proc/net/udp") as f:
        for line in f.readlines()[1:]:
            cols = line.split()
            if cols[1] == want:
                return int(cols[4].split(":")[1], 16), int(cols[-1]), cols[9]
    return 0, 0, None


RECEIVES = {"45", "47", "299"}  # recvfrom, recvmsg, recvmmsg (x86_64)


def receiving_on(pid):
    """The socket inode a process waits to receive on, else None (/proc/PID/syscall: number, then fd)."""
    try:
        with open(f"/proc/{pid}/syscall") as f:
            fields = f.read().split()
        if fields[0] not in RECEIVES:
            return None
        link = os.readlink(f"/proc/{pid}/fd/{int(fields[1], 16)}")
        return link[len("socket:["):-1] if link.startswith("socket:[") else None
    except (OSError, IndexError, ValueError):
        return None


def ticks():
    return sum(s[1] for s in (stat(p) for p in processes()) if s)


def log_size():
    try:
        return os.path.getsize(log) if log else 0
    except OSError:
        return 0


def log_findings(since):
    """(memory lines, ERROR lines) Kamailio wrote after byte `since` of its log (KamailioLogFindings' rule: an
    ERROR, CRITICAL or ALERT line that names a memory pool or says `out of mem`)."""
    memory = errors = 0
    try:
        with open(log, "rb") as f:
            f.seek(since)
            for raw in f:
                line = raw.decode("utf-8", "replace").lower()
                if not any(level in line for level in ("error", "critical", "alert")):
                    continue
                errors += 1
                if any(k in line for k in ("shm pool", "shared memory", "no more shm", "pkg pool", "private memory",
                                           "no more pkg", "out of mem", "no more memory")):
                    memory += 1
    except (OSError, TypeError):
        pass
    return memory, errors


start_log = log_size()
start_ticks, start_wall = ticks(), time.monotonic()
_, start_drops, inode = udp_socket()
waits = {}  # pid -> {state or wait channel: samples}
sip_workers = set()  # the processes seen waiting to receive on the SIP UDP socket
samples = max_queue = 0
drops = start_drops
while not stopped.is_set():
    samples += 1
    for pid in processes()[1:]:
        s = stat(pid)
        if s:
            key = "running" if s[0] == "R" else wchan(pid)
            per = waits.setdefault(pid, {})
            per[key] = per.get(key, 0) + 1
            if s[0] != "R" and pid not in sip_workers and inode and receiving_on(pid) == inode:
                sip_workers.add(pid)
    queue, drops, _ = udp_socket()
    max_queue = max(max_queue, queue)
    stopped.wait(0.02)
wall = time.monotonic() - start_wall
cpu = (ticks() - start_ticks) / TICK


def shares(tallies):
    total = {}
    for per in tallies:
        for k, v in per.items():
            total[k] = total.get(k, 0) + v
    n = sum(total.values()) or 1
    return {k: round(v / n, 3) for k, v in sorted(total.items(), key=lambda kv: -kv[1])}


memory_lines, error_lines = log_findings(start_log)
workers = [per for pid, per in waits.items() if pid in sip_workers]
others = [per for pid, per in waits.items() if pid not in sip_workers]
UDP_WAITS = ("__skb_wait_for_more_packets", "__skb_recv_udp")
worker_states = shares(workers)
with open(out, "w") as f:
    json.dump({"cpu_s": round(cpu, 2), "wall_s": round(wall, 2),
               "core_busy": round(cpu / wall, 3) if wall else None,
               "samples": samples, "udp_workers": len(workers),
               "udp_worker_states": worker_states,
               "udp_workers_on_datagrams": round(sum(worker_states.get(k, 0) for k in UDP_WAITS), 3),
               "udp_workers_running": worker_states.get("running", 0),
               "other_process_states": shares(others),
               "udp_max_queue_bytes": max_queue, "udp_drops": drops - start_drops,
               **({"log_memory_lines": memory_lines, "log_error_lines": error_lines} if log else {})}, f)
