#!/usr/bin/env python3
"""Instructions per HTTP call by layer and by function, from two callgrind profiles at two call counts.

usage: callgrind_http_layers.py PROFILE_N1 PROFILE_N2 CALLS_N1 CALLS_N2 [TOP]

callgrind_layers.py's rule (the difference of the profiles over the difference of the calls, the runtime's and C
libraries' cost charged to the callers), with the HTTP path's modules as layers of their own: the wire client
(HTTPWire) apart from the devices, the embedded target (ReferenceTarget, HTTPServer) apart from the push gateway.
Then the TOP (30) functions whose own cost grew most per call, unmangled with swift-demangle when it is there.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import callgrind_layers as cl  # noqa: E402

HTTP_LAYERS = {
    "HTTP devices (flows, actions, push intake)": ["Driver", "CallModel", "Scenario", "Faults", "FaultControl",
                                                   "PushModel", "Heaps", "Determinism", "Quantities", "Locking"],
    "HTTP client (wire, curl)": ["HTTPWire", "HTTP2Wire", "Transport", "CCurl", "StreamIO", "Bytes"],
    "event loops and sockets": ["SystemCalls", "EventPolling", "CLinux"],
    "embedded target (ReferenceTarget, HTTPServer)": ["ReferenceTarget", "HTTPServer"],
    "push gateway": ["PushGateway", "Credentials", "CSSL", "CSSLClient", "CNghttp2"],
    "recorder (metrics)": ["Metrics", "Thresholds"],
    "history (lines written)": ["RunFormats", "TextEscaping"],
    "checker": ["Checker", "HistoryLoading"],
    "report and run files": ["Reports", "Results", "CallstormCLI", "callstorm"],
}
cl.LAYERS = HTTP_LAYERS
cl.MODULE_LAYER = {m: layer for layer, modules in HTTP_LAYERS.items() for m in modules}
cl.ORDER = list(HTTP_LAYERS) + [cl.JSON_READING, cl.RUNTIME, cl.LIBC, cl.OTHER]


def demangle(names):
    tool = shutil.which("swift-demangle") or "/opt/swift/usr/bin/swift-demangle"
    if not os.path.exists(tool):
        return names
    out = subprocess.run([tool, "--simplified", "--compact"], input="\n".join(names), capture_output=True,
                         text=True).stdout.splitlines()
    return out if len(out) == len(names) else names


def main():
    args = sys.argv[1:]
    if len(args) < 4:
        sys.exit(__doc__.split("\n\n")[1])
    c1, c2 = int(args[2]), int(args[3])
    top = int(args[4]) if len(args) > 4 else 30
    if c2 <= c1:
        sys.exit("the second run completed no more calls than the first")
    a, b = cl.Profile(args[0]), cl.Profile(args[1])
    ca, cb = a.charged_by_layer(), b.charged_by_layer()
    print(f"{'charged':>12}  instructions per call, by layer")
    for layer in cl.ORDER:
        if layer in ca or layer in cb:
            print(f"{(cb.get(layer, 0) - ca.get(layer, 0)) // (c2 - c1):>12,}  {layer}")
    grown = sorted(((b.own.get(f, 0) - a.own.get(f, 0)) // (c2 - c1), f) for f in set(a.own) | set(b.own))
    grown = grown[::-1][:top]
    print(f"{'own':>12}  top {top} functions by own instructions per call")
    for (cost, _), name in zip(grown, demangle([f for _, f in grown])):
        print(f"{cost:>12,}  {name[:150]}")


if __name__ == "__main__":
    main()
