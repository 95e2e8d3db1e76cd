#!/usr/bin/env python3
# Lists, in a debug (-Onone) binary, the places that use the address a `_read` coroutine yielded after the
# coroutine has ended (docs/ARCHITECTURE.md, known issues, 2026-12-07): the yield (rdx after a call to a `...r`
# accessor) saved to a stack slot, then read from that slot after the coroutine's end (`call *%rax`). Where the
# coroutine's frame is malloc'd and holds a copy (an array element through a copying getter), that is a use of
# freed memory. A heuristic over objdump's text: read each line it prints before believing it.
# Usage: objdump -d --no-show-raw-insn BIN > BIN.dis; scripts/scan-read-yields.py BIN.dis BIN
import re, sys, subprocess
def scan(name, body, out):
    for i, (addr, ins) in enumerate(body):
        m = re.match(r'call\s+\w+ <(\S+)>', ins)
        if not (m and re.search(r'(ci|v|vg)r$', m.group(1))): continue
        derived = {'%rdx'}; slots = set(); end = None
        for j in range(i + 1, min(len(body), i + 400)):
            a2, ins2 = body[j]
            if end is None:
                if ins2.startswith('call') and '*%rax' in ins2: end = j; continue
                mm = re.match(r'mov\s+(%r\w+),(%r\w+)$', ins2)
                if mm and mm.group(1) in derived: derived.add(mm.group(2)); continue
                mm = re.match(r'mov\s+(%r\w+),(-0x[0-9a-f]+)\(%rbp\)$', ins2)
                if mm and mm.group(1) in derived: slots.add(mm.group(2)); continue
                if re.match(r'call\s+\w+ <\S+r>$', ins2): break
                md = re.search(r',(%r\w+)$', ins2)
                if md: derived.discard(md.group(1))
                if ins2.startswith('call'): derived = set()
            else:
                mm = re.match(r'mov\s+(-0x[0-9a-f]+)\(%rbp\),%r\w+$', ins2)
                if mm and mm.group(1) in slots:
                    out.append((name, addr, m.group(1), a2)); break
cur = None; body = []; out = []
for line in open(sys.argv[1]):
    m = re.match(r'^([0-9a-f]+) <(.+)>:$', line)
    if m:
        if cur: scan(cur, body, out)
        cur = m.group(2); body = []; continue
    m = re.match(r'^\s*([0-9a-f]+):\s+(.*)$', line)
    if m and cur: body.append((m.group(1), m.group(2).strip()))
if cur: scan(cur, body, out)
binary = sys.argv[2]
for name, addr, coro, use in out:
    line = subprocess.run(['addr2line', '-e', binary, '0x' + addr], capture_output=True, text=True).stdout.strip()
    line = re.sub(r'^.*/Sources/', 'Sources/', line)
    c = subprocess.run(['swift-demangle', '-simplified', '-compact', coro], capture_output=True, text=True).stdout.strip()
    print(f'{line}  [{c[:70]}]')
