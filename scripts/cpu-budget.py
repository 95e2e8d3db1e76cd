#!/usr/bin/env python3
"""A CPU budget of one callstorm run from `perf record --call-graph dwarf` (issue 20).

Usage: perf script -i perf.data -F comm,tid,time,ip,sym,dso | scripts/cpu-budget.py CALLS [--json]

Every sample is charged to one part of the work. Frames are read from the leaf outwards: the first frame that
belongs to a part decides, with two exceptions read over the whole stack first (the end of the run and the live
snapshot and checkpoints), because whatever they call (histograms, JSON) is theirs. A Driver frame hands its
sample to the push side when an enclosing Driver frame is the device's push handling. Kernel frames belong to
whoever made the system call, so the walk simply continues into user space.
"""
import json
import re
import sys

# Read over the whole stack first.
WHOLE_STACK = [
    ("end of run (history join, checker, reports)",
     re.compile(r"\$s7Reports|\$s7Checker|HistoryJoin|RunResults|RunReporting|CapacityAnalysis")),
    ("live snapshot and checkpoints", re.compile(r"LiveSlot|Checkpoint|Segments|liveSnapshot|publish_")),
]

# Leaf outwards.
LEAF_OUT = [
    ("recording (histograms, counters, series)", re.compile(r"\$s7Metrics")),
    ("journaling (actions, pushes, history)", re.compile(r"\$s7Results|HistoryText|TraceWriter|WorkerJournal")),
    ("pushes: gateway receive (HTTP, h2, TLS)",
     re.compile(r"\$s11PushGateway|\$s10HTTPServer|nghttp2_|libssl|libcrypto|\$s9PushModel")),
    ("flow logic and response handling", re.compile(r"\$s6Driver|\$s9CallModel|\$s6Faults|\$s8Scenario")),
    ("requests (libcurl, transport)", re.compile(r"libcurl|curl_|Curl_|\$s9Transport")),
    ("event loops and thread hand-offs",
     re.compile(r"EventThread|EpollSet|\$s12EventPolling|libdispatch|_dispatch_|futex|epoll_wait")),
]
PUSH_SIDE = re.compile(r"DevicePushSink|\$s6Driver6WorkerC7receive|\$s6Driver6WorkerC8accepted|"
                       r"\$s6Driver6WorkerC7process_")
DRIVER_LIKE = re.compile(r"\$s6Driver|\$s9CallModel|\$s6Faults|libswiftCore|libjemalloc|libc\.so|"
                         r"FoundationEssentials|\[kernel")


def charge(frames):
    text = "\n".join(frames)
    for name, pattern in WHOLE_STACK:
        if pattern.search(text):
            return name
    for i, frame in enumerate(frames):
        for name, pattern in LEAF_OUT:
            if not pattern.search(frame):
                continue
            if name.startswith("flow logic"):
                for outer in frames[i + 1:]:
                    if PUSH_SIDE.search(outer):
                        return "pushes: device handling (parse, report, answer)"
                    if not DRIVER_LIKE.search(outer):
                        break
            return name
    if any("[kernel" in f for f in frames[:1]):
        return "kernel, not attributed"
    return "other (start-up, runtime, unattributed)"


def samples(stream):
    frames = []
    for line in stream:
        line = line.rstrip("\n")
        if not line.strip():
            if frames:
                yield frames
            frames = []
        elif line.startswith("\t") or line.startswith(" "):
            frames.append(line.strip())
        else:
            frames = []
    if frames:
        yield frames


def main():
    calls = float(sys.argv[1])
    as_json = "--json" in sys.argv
    totals = {}
    count = 0
    for frames in samples(sys.stdin):
        part = charge(frames)
        totals[part] = totals.get(part, 0) + 1
        count += 1
    rows = sorted(totals.items(), key=lambda kv: -kv[1])
    if as_json:
        json.dump({"samples": count, "calls": calls,
                   "parts": [{"part": p, "share": n / count} for p, n in rows]}, sys.stdout, indent=1)
        return
    print(f"{count} samples, {calls:.0f} calls")
    for part, n in rows:
        print(f"{100 * n / count:6.1f} %  {part}")


if __name__ == "__main__":
    main()
