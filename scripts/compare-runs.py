#!/usr/bin/env python3
"""Compares what is deterministic in two run directories (issue 25, docs/results/issue25-worker.md).

counters.csv and the books (summary.json) must match exactly; faults.csv and history.jsonl are compared as
multisets of rows with their timing fields and server-minted conversation ids taken out (each run's target mints
fresh UUIDs, and rows of different workers interleave by time). Prints one line per file: same, or the
differences. Exit 1 when any file differs.
"""
import collections, csv, json, re, sys

UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')

def counters(d):
    with open(f"{d}/counters.csv") as f:
        return {row["counter"]: row["value"] for row in csv.DictReader(f)}

def books(d):
    return json.load(open(f"{d}/summary.json"))["books"]

def faults(d):
    try:
        rows = list(csv.reader(open(f"{d}/faults.csv")))
    except FileNotFoundError:
        return collections.Counter()
    header, body = rows[0], rows[1:]
    keep = [i for i, h in enumerate(header) if not h.endswith("_s") and h not in ("t", "since_load_s", "at_s")]
    return collections.Counter(tuple(UUID.sub("U", r[i]) for i in keep if i < len(r)) for r in body)

def history(d):
    out = collections.Counter()
    for line in open(f"{d}/history.jsonl"):
        e = json.loads(line)
        e.pop("t", None)
        e.pop("op", None)  # numbered per worker in the order actions start, which answers' timing decides
        out[UUID.sub("U", json.dumps(e, sort_keys=True))] += 1
    return out

DEVICE = re.compile(r'dev-[0-9]+')

def shapes(counter):
    """The same rows with device ids taken out too: which devices a call gets depends on which were idle at its
    planned instant, which the timing of earlier calls decides (old against old differs there as well)."""
    out = collections.Counter()
    for k, n in counter.items():
        out[DEVICE.sub("D", k if isinstance(k, str) else ",".join(k))] += n
    return out

def diff(name, a, b):
    if a == b:
        print(f"{name}: same ({sum(a.values()) if isinstance(a, collections.Counter) else len(a)} entries)")
        return True
    if isinstance(a, collections.Counter):
        only_a, only_b = a - b, b - a
        print(f"{name}: {sum(only_a.values())} rows only in A, {sum(only_b.values())} only in B")
        for k, n in list(only_a.items())[:5]: print(f"  A×{n}: {k[:300] if isinstance(k, str) else k}")
        for k, n in list(only_b.items())[:5]: print(f"  B×{n}: {k[:300] if isinstance(k, str) else k}")
    elif isinstance(a, dict) and name == "counters.csv":
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k): print(f"  {name} {k}: A={a.get(k)} B={b.get(k)}")
    else:
        print(f"{name}: differ\n  A={json.dumps(a)[:600]}\n  B={json.dumps(b)[:600]}")
    return False

a, b = sys.argv[1], sys.argv[2]
fa, fb, ha, hb = faults(a), faults(b), history(a), history(b)
ok = all([diff("counters.csv", counters(a), counters(b)), diff("books", books(a), books(b)),
          diff("faults.csv (devices as D)", shapes(fa), shapes(fb)),
          diff("history.jsonl (devices as D)", shapes(ha), shapes(hb))])
print("-- with device ids (informative: timing decides which idle devices a call takes) --")
diff("faults.csv", fa, fb)
diff("history.jsonl", ha, hb)
sys.exit(0 if ok else 1)
