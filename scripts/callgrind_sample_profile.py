#!/usr/bin/env python3
"""An LLVM sample profile (text format, for `swiftc -profile-sample-use=FILE`) from a callgrind profile taken with
--dump-instr=yes: each instruction's execution count put on its line and its inlined frames.

usage: callgrind_sample_profile.py CALLGRIND BINARY OUT

BINARY is the unstripped binary the profiled (stripped) copy was made from. Each instruction's count (`Ir`) goes
to its innermost frame's line offset from that function's first line (`llvm-symbolizer --inlining`: `Line`,
`StartLine`, `Discriminator`), nested under each inlining frame's call site as LLVM's format nests inlined
callees; a line's count is the most any of its instructions ran, a function's head the count of its first
instruction. Made for profile-guided layout where no hardware counters exist (docs/SIP.md, "Where the
instruction-cache misses lie", where a build with it is measured).
"""
import collections
import json
import subprocess
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from callgrind_cache_lines import per_instruction, symbols_and_bias  # noqa: E402


def node():
    return {"body": collections.Counter(), "calls": collections.defaultdict(dict), "head": 0}


def total(n):
    return sum(n["body"].values()) + sum(total(c) for sites in n["calls"].values() for c in sites.values())


def key(frame):
    off = frame.get("Line", 0) - frame.get("StartLine", 0)
    disc = frame.get("Discriminator", 0)
    return (off, disc) if off >= 0 else None


def write(out, name, n, depth):
    pad = " " * depth
    for (off, disc), count in sorted(n["body"].items()):
        out.write(f"{pad} {off}{'.' + str(disc) if disc else ''}: {count}\n")
    for (off, disc), callees in sorted(n["calls"].items()):
        for callee, c in sorted(callees.items()):
            out.write(f"{pad} {off}{'.' + str(disc) if disc else ''}: {callee}:{total(c)}\n")
            write(out, callee, c, depth + 1)


def main():
    path, binary, target = sys.argv[1:4]
    command = next(line for line in open(path, errors="replace") if line.startswith("cmd:"))
    counts, first = per_instruction(path, "Ir", "/" + command.split()[1].rsplit("/", 1)[-1])
    symbols, bias = symbols_and_bias(binary, first)
    starts = {a: f for f, a in symbols.items()}
    top = collections.defaultdict(node)
    addresses = [x for x, v in counts.items() if v > 0]
    for i in range(0, len(addresses), 4000):
        part = addresses[i:i + 4000]
        out = subprocess.run(["llvm-symbolizer", "--inlining", "--no-demangle", f"--obj={binary}",
                              "--output-style=JSON"], input="\n".join(hex(x - bias) for x in part),
                             capture_output=True, text=True).stdout
        for x, text in zip(part, out.strip().split("\n")):
            frames = json.loads(text).get("Symbol", [])
            if not frames or not frames[-1].get("FunctionName"):
                continue
            n = top[frames[-1]["FunctionName"]]
            if x - bias in starts:
                n["head"] = max(n["head"], counts[x])
            ok = True
            for k in range(len(frames) - 1, 0, -1):  # outermost down to the innermost's caller
                site = key(frames[k])
                if site is None:
                    ok = False
                    break
                n = n["calls"][site].setdefault(frames[k - 1].get("FunctionName", "?"), node())
            site = key(frames[0])
            if ok and site is not None:
                n["body"][site] = max(n["body"][site], counts[x])
    with open(target, "w") as out:
        for name, n in sorted(top.items(), key=lambda kv: -total(kv[1])):
            t = total(n)
            if t == 0:
                continue
            out.write(f"{name}:{t}:{n['head']}\n")
            write(out, name, n, 0)


if __name__ == "__main__":
    main()
