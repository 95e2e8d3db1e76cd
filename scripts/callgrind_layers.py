#!/usr/bin/env python3
"""Instructions per call by layer, from two callgrind profiles of the same run at two call counts.

usage: callgrind_layers.py PROFILE_N1 PROFILE_N2 CALLS_N1 CALLS_N2 [--json]

Each function's self cost (instructions it ran itself, not in its callees) is read from the callgrind output file,
and the function is put in the layer its SwiftPM module belongs to: a Swift symbol names its module in its mangled
prefix (`$s9SIPClient…`), and C functions are placed by the object file they came from. The difference of the two
profiles over the difference of the calls is what one more call costs in each layer; start-up, registration and the
parts of the report that do not grow with calls cancel out, as in bench-sip-instructions.sh's total.

Self cost puts a generic standard-library function the optimiser did not specialise into "Swift runtime" rather
than into the module that called it: the runtime row is the layers' shared overhead (allocation, reference
counting, hashing, string handling), and a change that moves cost from a layer into it shows up in both rows.
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
ORDER = list(LAYERS) + [RUNTIME, LIBC, OTHER]

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


def self_costs(path):
    """{layer: instructions} of one callgrind output file (positions as lines, the first event Ir)."""
    names = {"ob": {}, "fn": {}}
    obj, fn = "", ""
    totals = {}
    skip_next = False

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
                if skip_next:
                    skip_next = False
                    continue
                parts = line.split()
                if len(parts) >= 2:
                    layer = layer_of(obj, fn)
                    totals[layer] = totals.get(layer, 0) + int(parts[1])
                continue
            key, _, value = line.rstrip("\n").partition("=")
            if key == "ob":
                obj = resolve("ob", value)
            elif key == "fn":
                fn = resolve("fn", value)
            elif key in ("cob", "cfn"):
                resolve(key[1:], value)  # a callee's name, defined here for later use
            elif key == "calls":
                skip_next = True  # the next cost line is the call's inclusive cost, not this function's own
    return totals


def per_call(first, second, calls1, calls2):
    a, b = self_costs(first), self_costs(second)
    if calls2 <= calls1:
        return {}
    return {layer: (b.get(layer, 0) - a.get(layer, 0)) // (calls2 - calls1) for layer in ORDER
            if layer in a or layer in b}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 4:
        sys.exit(__doc__.split("\n\n")[1])
    layers = per_call(args[0], args[1], int(args[2]), int(args[3]))
    if "--json" in sys.argv:
        json.dump(layers, sys.stdout, indent=2)
        print()
        return
    for layer in ORDER:
        if layer in layers:
            print(f"{layers[layer]:>12,}  {layer}")
    print(f"{sum(layers.values()):>12,}  in all")


if __name__ == "__main__":
    main()
