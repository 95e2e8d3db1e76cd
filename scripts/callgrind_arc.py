#!/usr/bin/env python3
"""Reference counting and allocation per call, and who does it, from two callgrind profiles of one run.

usage: callgrind_arc.py PROFILE_N1 PROFILE_N2 CALLS_N1 CALLS_N2 [--top N] [--json]

Instructions alone miss where callstorm's user time goes: each `swift_retain`/`swift_release` is an atomic
read-modify-write, each allocation a trip through the allocator, and at the same instruction count callstorm ran
at ~0.8 instructions a cycle against SIPp's ~1.8 (docs/SIP.md, "Where the CPU goes beyond instructions"). This
counts, per call, how many times the runtime's reference counting, uniqueness checks and allocations were called
(callgrind's `calls=` lines), and which functions called them most. As in callgrind_layers.py, the difference of
the two profiles over the difference of the calls cancels start-up and the report's fixed part.

Profiles come from `KEEP=1 scripts/bench-sip-instructions.sh` (its work directory keeps both), or any pair of
callgrind runs of one binary at two sizes.
"""
import json
import os
import re
import shutil
import subprocess
import sys

COUNTED = {
    "retain": ("swift_retain", "swift_bridgeObjectRetain", "swift_retain_n", "swift_nonatomic_retain"),
    "release": ("swift_release", "swift_bridgeObjectRelease", "swift_release_n", "swift_nonatomic_release"),
    "unique": ("swift_isUniquelyReferenced_nonNull_native", "swift_isUniquelyReferenced_native",
               "swift_isUniquelyReferencedNonObjC_nonNull"),
    "alloc": ("swift_allocObject", "swift_slowAlloc"),  # objects and buffers: arrays, strings, boxes
    "malloc": ("malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"),
}
KIND = {name: kind for kind, names in COUNTED.items() for name in names}
NAME = re.compile(r"c?fn=\((\d+)\)(?: (.*))?")


def read(path):
    """Per kind, the calls made to it; per (caller, kind), the calls that caller made."""
    names, totals, callers = {}, {}, {}
    fn = cfn = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("fn=") or line.startswith("cfn="):
                m = NAME.match(line.strip())
                if not m:
                    continue
                if m.group(2):
                    names[m.group(1)] = m.group(2)
                if line.startswith("fn="):
                    fn = names.get(m.group(1))
                else:
                    cfn = names.get(m.group(1))
            elif line.startswith("calls=") and cfn in KIND and fn not in KIND:
                # A counted function calling another (bridgeObjectRetain → retain, allocObject → slowAlloc →
                # malloc) is one event, counted once at its outermost call.
                n = int(line.split("=", 1)[1].split()[0])
                kind = KIND[cfn]
                totals[kind] = totals.get(kind, 0) + n
                key = (fn or "?", kind)
                callers[key] = callers.get(key, 0) + n
    return totals, callers


def demangled(names):
    """Readable names through the toolchain's swift-demangle when it is there; the mangled ones otherwise."""
    tool = shutil.which("swift-demangle") or "/opt/swift/usr/bin/swift-demangle"
    if not os.path.exists(tool):
        return names
    out = subprocess.run([tool, "--simplified", "--compact"], input="\n".join(names), capture_output=True,
                         text=True)
    lines = out.stdout.split("\n")
    return lines[:len(names)] if out.returncode == 0 and len(lines) >= len(names) else names


def main(argv):
    top = 40
    if "--top" in argv:
        at = argv.index("--top")
        top = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    args = [a for a in argv if not a.startswith("--")]
    if len(args) != 4:
        sys.exit(__doc__)
    a_tot, a_callers = read(args[0])
    b_tot, b_callers = read(args[1])
    span = float(args[3]) - float(args[2])
    if span <= 0:
        sys.exit("callgrind_arc.py: CALLS_N2 must be larger than CALLS_N1")
    per_call = {k: (b_tot.get(k, 0) - a_tot.get(k, 0)) / span for k in COUNTED}
    by_caller = {}
    for (fn, kind), n in b_callers.items():
        d = (n - a_callers.get((fn, kind), 0)) / span
        if d > 0:
            by_caller.setdefault(fn, {})[kind] = d
    ranked = sorted(by_caller.items(), key=lambda kv: -sum(kv[1].values()))[:top]
    if "--json" in argv:
        print(json.dumps({"per_call": per_call,
                          "callers": [{"function": fn, **counts} for fn, counts in ranked]}, indent=1))
        return
    print("per call: " + ", ".join(f"{k} {v:,.0f}" for k, v in per_call.items()))
    print(f"{'retain':>7} {'release':>7} {'unique':>7} {'alloc':>6} {'malloc':>6}  caller")
    for (fn, c), name in zip(ranked, demangled([fn for fn, _ in ranked])):
        cells = " ".join(f"{c.get(k, 0):{w},.0f}" for k, w in
                         (("retain", 7), ("release", 7), ("unique", 7), ("alloc", 6), ("malloc", 6)))
        print(f"{cells}  {name[:140]}")


if __name__ == "__main__":
    main(sys.argv[1:])
