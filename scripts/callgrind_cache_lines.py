#!/usr/bin/env python3
"""Instruction-cache misses per call by source area, by function and by source line, from the two profiles of
`INSTR=1 KEEP=1 scripts/sip-cache-sim.sh cs` (cs-40.callgrind and cs-120.callgrind with --dump-instr=yes).

usage: callgrind_cache_lines.py DIR BINARY [EVENT] [N]

BINARY is the unstripped release binary the run's stripped copy was made from (valgrind 3.19 cannot read its
DWARF 5; llvm-symbolizer can): each instruction's misses (EVENT, I1mr by default) over the 80 calls between the
two runs are put on its source line with the inlined frames (`llvm-symbolizer --inlining`). Printed: the misses
by the module of the outermost frame that has a source file (code the compiler made with no source frame at all,
such as standard-library specialisations, outlined copies and value witnesses, in a row of its own), by function
(the symbol the instruction lies in), and the N source lines with the most, innermost frame.
"""
import collections
import json
import re
import subprocess
import sys

NAME = re.compile(r"(c?fn|c?ob)=\((\d+)\)(?: (.*))?")
MODULE = re.compile(r"\$s(\d+)([A-Za-z_0-9]+)")


def per_instruction(path, event, executable="/cs"):
    """Self cost of `event` per instruction address of the executable (the object whose path ends with
    `executable`), and each function's lowest address seen."""
    names, objects, per, first = {}, {}, collections.Counter(), {}
    positions, column, fn, ob, skip = None, None, None, None, False
    last = [0, 0]
    for line in open(path, errors="replace"):
        if line.startswith("positions:"):
            positions = line.split()[1:]
            continue
        if line.startswith("events:"):
            column = line.split()[1:].index(event)
            continue
        c = line[:1]
        if c.isdigit() or c in "+-*":
            parts = line.split()
            for i, p in enumerate(parts[:len(positions)]):
                if p == "*":
                    continue
                last[i] = last[i] + int(p[0] + str(int(p[1:], 0))) if p[0] in "+-" else int(p, 0)
            if skip:  # the inclusive cost of a call, not the caller's own
                skip = False
                continue
            costs = parts[len(positions):]
            if ob and ob.endswith(executable) and len(costs) > column:
                per[last[0]] += int(costs[column])
                first[fn] = min(first.get(fn, last[0]), last[0])
            continue
        m = NAME.match(line.rstrip("\n"))
        if m:
            kind, key, text = m.groups()
            table = objects if kind.endswith("ob") else names
            if text is not None:
                table[key] = text
            if kind == "fn":
                fn = names[key]
            elif kind == "ob":
                ob = objects[key]
        elif line.startswith("calls="):
            skip = True
    return per, first


def symbols_and_bias(binary, first):
    """The binary's defined symbols (name → address, from nm) and the load bias callgrind's addresses carry: the
    offset most functions' first instruction (`first`, per_instruction's) shows against their symbol."""
    symbols = {}
    for line in subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True).stdout.split("\n"):
        p = line.split()
        if len(p) == 3:
            symbols[p[2]] = int(p[0], 16)
    bias = collections.Counter(first[f] - symbols[f] for f in first if f in symbols).most_common(1)[0][0]
    return symbols, bias


def no_source(symbol):
    """The row of code with no source frame: the module its mangled name starts with (outlined copies, value
    witnesses and specialisations of a module's own generics), the standard library's generics specialised into
    the binary, or C."""
    if symbol.startswith(("$ss", "$sS")):
        return "(standard library code specialised into callstorm)"
    m = MODULE.match(symbol)
    return f"{m.group(2)[:int(m.group(1))]} (compiler-made, no source line)" if m else "(C and libraries linked in)"


def main():
    directory, binary = sys.argv[1], sys.argv[2]
    event = sys.argv[3] if len(sys.argv) > 3 else "I1mr"
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    a, _ = per_instruction(f"{directory}/cs-40.callgrind", event)
    b, first = per_instruction(f"{directory}/cs-120.callgrind", event)
    diff = {x: (b[x] - a.get(x, 0)) / 80 for x in set(a) | set(b)}
    symbols, bias = symbols_and_bias(binary, first)
    addresses = [x for x, v in diff.items() if abs(v) > 0.01]
    by_module, by_function, by_line = collections.Counter(), collections.Counter(), collections.Counter()
    for i in range(0, len(addresses), 4000):
        part = addresses[i:i + 4000]
        out = subprocess.run(["llvm-symbolizer", "--inlining", f"--obj={binary}", "--output-style=JSON"],
                             input="\n".join(hex(x - bias) for x in part), capture_output=True, text=True).stdout
        for x, text in zip(part, out.strip().split("\n")):
            frames = json.loads(text).get("Symbol", [])
            if not frames:
                continue
            v = diff[x]
            files = [f.get("FileName", "") for f in frames]
            real = [f for f in files if "/Sources/" in f]
            if real:
                by_module[real[-1].split("/Sources/")[-1].split("/")[0]] += v
            else:
                by_module[no_source(frames[-1].get("FunctionName", ""))] += v
            by_function[frames[-1].get("FunctionName", "?")] += v
            inner = frames[0]
            by_line[f"{inner.get('FileName', '?').split('/Sources/')[-1]}:{inner.get('Line')}"
                    f"  ({inner.get('FunctionName', '?')[:60]})"] += v
    total = sum(by_module.values())
    print(f"{event} per call in the executable: {total:,.0f}")
    for k, v in by_module.most_common():
        print(f"  {v:8,.0f} {v / total * 100:5.1f}%  {k}")
    top = by_function.most_common(n)
    shown = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(k for k, _ in top),
                           capture_output=True, text=True).stdout.split("\n")
    print(f"by function (the {n} with most):")
    for (k, v), d in zip(top, shown):
        print(f"  {v:8,.1f}  {d[:140]}")
    print(f"by source line, innermost frame (the {n} with most):")
    for k, v in by_line.most_common(n):
        print(f"  {v:8,.1f}  {k}")


if __name__ == "__main__":
    main()
