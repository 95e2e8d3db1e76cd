#!/usr/bin/env python3
"""Instructions per call by layer, from two callgrind profiles of the same run at two call counts.

usage: callgrind_layers.py PROFILE_N1 PROFILE_N2 CALLS_N1 CALLS_N2 [--json]

Each function's own cost (instructions it ran itself, not in its callees) is read from the callgrind output file,
and the function is put in the layer its SwiftPM module belongs to: a Swift symbol names its module in its mangled
prefix (`$s9SIPClient…`), and C functions are placed by the object file they came from. The difference of the two
profiles over the difference of the calls is what one more call costs in each layer; start-up, registration and the
parts of the report that do not grow with calls cancel out, as in bench-sip-instructions.sh's total.

Two columns: "own" leaves the Swift runtime's and the C libraries' work (allocation, reference counting, hashing,
generic standard-library code the optimiser did not specialise, memcpy) in rows of their own; "charged" charges it
to the layers that called it, split over each function's callers by what each call edge spent (gprof's rule), so a
layer that allocates per event pays for it. The JSON is the charged column. Work that grows with the run's length
rather than its calls (the per-second time series, .hlog intervals, the harness sampler) lands in the report row,
since the longer run is also the one with more calls: compare rows of runs at the same rate.
"""
import json
import re
import sys

# The layers of docs/ARCHITECTURE.md that a SIP call passes through, by module.
LAYERS = {
    "agent (SIP messages, transactions, dialogs, sockets)": [
        "SIP", "SIPClient", "Bytes", "SystemCalls", "EventPolling", "StreamIO", "Transport", "WebSocket",
        "WebSocketClient", "CLinux"],
    "Driver per event (devices, flows, calls, faults)": [
        "Driver", "CallModel", "Scenario", "Faults", "FaultControl", "PushModel", "Heaps", "Determinism",
        "Quantities", "Locking"],
    "media (RTP streams: send, receive, measure)": ["Media", "MediaIO", "RTPEngine"],
    "recorder (metrics)": ["Metrics", "Thresholds"],
    "history (lines written)": ["RunFormats", "TextEscaping"],
    "checker": ["Checker", "HistoryLoading"],
    "report and run files": ["Reports", "Results", "CallstormCLI", "callstorm"],
    "push gateway and servers": ["PushGateway", "HTTPServer", "ReferenceTarget", "FaultProxy", "Credentials",
                                 "CSSL", "CSSLClient", "Kamailio", "SIPEmbedded"],
}
MODULE_LAYER = {m: layer for layer, modules in LAYERS.items() for m in modules}
RUNTIME = "Swift runtime and standard library"
LIBC = "libc, allocator and other C libraries"
OTHER = "unattributed"
# The JSON reader beside the history's writer in TextEscaping: devices read pushes and the target's answers with
# it, and the target its request bodies, so its cost is its callers' (charged like the runtime's), not the
# history's. Before 2026-12-06 it counted as history: ~300 k of an HTTP call's "history" was devices and the
# target reading JSON.
JSON_READING = "JSON reading (JSONLite: pushes, answers, bodies)"
JSON_READING_SYMBOLS = ("$s12TextEscaping8JSONLite", "$s12TextEscaping9JSONField", "$s12TextEscaping8JSONScan",
                        "$s12TextEscaping11JSONPattern")
ORDER = list(LAYERS) + [JSON_READING, RUNTIME, LIBC, OTHER]

MANGLED_MODULE = re.compile(r"^\$s(\d+)")


def module_of(symbol):
    """The module a mangled Swift symbol belongs to; "Swift" for the standard library's; None for C."""
    if not symbol.startswith("$s"):
        return None
    m = MANGLED_MODULE.match(symbol)
    if not m:
        return "Swift"  # `$sS…`/`$ss…`: the standard library's substitutions
    length = int(m.group(1))
    return symbol[m.end():m.end() + length]


def layer_of(obj, symbol):
    if symbol.startswith(JSON_READING_SYMBOLS):
        return JSON_READING
    module = module_of(symbol)
    if module is not None:
        if module in MODULE_LAYER:
            return MODULE_LAYER[module]
        return RUNTIME if module in ("Swift", "Foundation", "FoundationEssentials", "Dispatch", "_Concurrency",
                                     "Synchronization", "XCTest") else OTHER
    if symbol.startswith("swift_") or "libswift" in obj or "Foundation" in obj or "dispatch" in obj:
        return RUNTIME
    if symbol.startswith("clinux_"):
        return MODULE_LAYER["CLinux"]
    if symbol.startswith(("cssl_", "callstorm_ssl")):
        return MODULE_LAYER["CSSL"]
    return LIBC


NAMED = re.compile(r"^\((\d+)\)(?: (.*))?$")


class Profile:
    """One callgrind output file: each function's own instructions, its object file, and each call edge's
    inclusive instructions (positions as lines, the first event Ir)."""

    def __init__(self, path):
        self.own = {}     # function -> its own instructions
        self.obj = {}     # function -> object file
        self.edges = {}   # callee -> {caller: inclusive instructions of the calls}
        names = {"ob": {}, "fn": {}}
        obj = fn = callee = callee_obj = ""
        in_call = False

        def resolve(kind, text):
            m = NAMED.match(text)
            if not m:
                return text
            ident, name = m.groups()
            if name is not None:
                names[kind][ident] = name
            return names[kind].get(ident, text)

        with open(path, errors="replace") as f:
            for line in f:
                if not line or line[0] in "#\n":
                    continue
                if line[0].isdigit() or line[0] in "+-*":
                    parts = line.split()
                    if len(parts) < 2:
                        continue
                    cost = int(parts[1])
                    if in_call:  # the call's inclusive cost, not this function's own
                        in_call = False
                        callers = self.edges.setdefault(callee, {})
                        callers[fn] = callers.get(fn, 0) + cost
                        self.obj.setdefault(callee, callee_obj)
                    else:
                        self.own[fn] = self.own.get(fn, 0) + cost
                    continue
                key, _, value = line.rstrip("\n").partition("=")
                if key == "ob":
                    obj = resolve("ob", value)
                    callee_obj = obj
                elif key == "fn":
                    fn = resolve("fn", value)
                    self.obj.setdefault(fn, obj)
                    callee_obj = obj
                elif key == "cob":
                    callee_obj = resolve("ob", value)
                elif key == "cfn":
                    callee = resolve("fn", value)
                elif key == "calls":
                    in_call = True

    def own_by_layer(self):
        """{layer: instructions}: each function's own cost in its module's layer."""
        totals = {}
        for fn, cost in self.own.items():
            layer = layer_of(self.obj.get(fn, ""), fn)
            totals[layer] = totals.get(layer, 0) + cost
        return totals

    def charged_by_layer(self, rounds=40):
        """{layer: instructions}: the runtime's and C libraries' own cost charged to the layers that called them,
        split over each function's callers by the instructions each call edge spent in it (gprof's rule: a call
        costs the same whoever makes it), through chains of runtime calls; what no layer called stays where it
        ran (thread start-up, the dynamic loader)."""
        shares = {}
        for fn in self.obj:
            layer = layer_of(self.obj[fn], fn)
            shares[fn] = {layer: 1.0}
        shared = [fn for fn in self.obj if layer_of(self.obj[fn], fn) in (JSON_READING, RUNTIME, LIBC, OTHER) and
                  self.edges.get(fn)]
        for _ in range(rounds):  # chains and cycles of runtime calls settle in a few rounds
            for fn in shared:
                callers = self.edges[fn]
                total = sum(callers.values())
                if not total:
                    continue
                mix = {}
                for caller, cost in callers.items():
                    for layer, part in shares.get(caller, {OTHER: 1.0}).items():
                        mix[layer] = mix.get(layer, 0.0) + part * cost / total
                shares[fn] = mix
        totals = {}
        for fn, cost in self.own.items():
            for layer, part in shares.get(fn, {OTHER: 1.0}).items():
                totals[layer] = totals.get(layer, 0) + cost * part
        return {layer: int(round(v)) for layer, v in totals.items()}


def self_costs(path):
    """{layer: instructions} of one callgrind output file, each function's own cost in its module's layer."""
    return Profile(path).own_by_layer()


def per_call(first, second, calls1, calls2, charged=True):
    """{layer: instructions per call}: the difference of the two profiles over the difference of the calls."""
    if calls2 <= calls1:
        return {}
    a, b = Profile(first), Profile(second)
    a, b = (a.charged_by_layer(), b.charged_by_layer()) if charged else (a.own_by_layer(), b.own_by_layer())
    return {layer: (b.get(layer, 0) - a.get(layer, 0)) // (calls2 - calls1) for layer in ORDER
            if layer in a or layer in b}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    charged = per_call(args[0], args[1], int(args[2]), int(args[3]))
    if "--json" in sys.argv:
        json.dump(charged, sys.stdout, indent=2)
        print()
        return
    own = per_call(args[0], args[1], int(args[2]), int(args[3]), charged=False)
    print(f"{'own':>12}  {'charged':>12}  instructions per call, by layer")
    for layer in ORDER:
        if layer in own or layer in charged:
            print(f"{own.get(layer, 0):>12,}  {charged.get(layer, 0):>12,}  {layer}")
    print(f"{sum(own.values()):>12,}  {sum(charged.values()):>12,}  in all")


if __name__ == "__main__":
    main()
