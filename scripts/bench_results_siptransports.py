#!/usr/bin/env python3
"""The sip-tls and sip-ws sections' figures (scripts/bench-sip-transports.sh's files in WORK/sip-tls, WORK/sip-ws),
for bench-results.py: callstorm's SIP devices over TLS or WebSocket beside the same over TCP in the same run, through
one Kamailio. SIPp is no peer: Debian's SIPp 3.6.1 has no TLS and no WebSocket.

Calls per client CPU-second: completed calls ÷ user + system seconds of the whole callstorm process (GNU time), as
in the SIP section (bench_results_peers.callstorm_run, which also says whether the run held: ≥ 99 % of the planned
calls completed, scheduler lag p99 ≤ 10 ms). The ratio is taken per round (TLS or WS ÷ TCP). The wake-up path's
parts on connection-oriented transports (summary.csv): wake.connect (a sleeping device's new connection),
wake.handshake (the TLS handshake, or the WebSocket Upgrade; none over TCP), wake.register (REGISTER → 200 on it),
at p50 and p99, with push_to_register, the whole.

usage: bench_results_siptransports.py one OUT NAME | summary OUT"""
import csv
import glob
import os
import sys

from bench_results_peers import callstorm_run, verdict

PARTS = (("wake.connect", "connect"), ("wake.handshake", "handshake"), ("wake.register", "REGISTER"),
         ("push_to_register", "push → REGISTER"))
LABEL = {"tls": "TLS", "ws": "WebSocket", "tcp": "TCP"}


def _plan(out):
    try:
        rate, seconds, transport = open(os.path.join(out, "plan")).read().split()
        return int(rate), int(seconds), transport
    except (OSError, ValueError):
        return None, None, None


def run(out, name):
    """One run's figures (callstorm_run's, and the wake-up parts' p50/p99 in ms); None without counters."""
    _, seconds, _ = _plan(out)
    r = callstorm_run(out, name, seconds or 10)
    if r is None:
        return None
    path = os.path.join(out, name, "summary.csv")
    summary = {row["metric"]: row for row in csv.DictReader(open(path))} if os.path.exists(path) else {}
    counters = os.path.join(out, name, "counters.csv")
    registered = ({row["counter"]: int(row["value"]) for row in csv.DictReader(open(counters))}
                  .get("sip.registration.registered", 0) if os.path.exists(counters) else 0)
    r["registrations_per_cpu_s"] = registered / r["cpu_seconds"] if r.get("cpu_seconds") else None
    r["parts"] = {metric: (_float(summary.get(metric, {}).get("p50")), _float(summary.get(metric, {}).get("p99")))
                  for metric, _ in PARTS}
    return r


def _float(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def _ms(x):
    return "–" if x is None else f"{x:.3g}"


def parts_text(r):
    """"connect 0.2/0.9 ms, handshake …" (p50/p99) for the parts a run recorded."""
    if not r:
        return ""
    shown = [f"{label} {_ms(p50)}/{_ms(p99)} ms" for metric, label in PARTS
             for p50, p99 in [r["parts"].get(metric, (None, None))] if p50 is not None]
    return ", ".join(shown)


def _rate(r):
    x = r.get("registrations_per_cpu_s") if r else None
    return "–" if x is None else f"{x:,.0f}"


def line(r):
    return "no figures (see its log)" if r is None else verdict(r) + (
        f"; p50/p99 {parts_text(r)}" if parts_text(r) else "")


def rounds(out):
    return sorted({int(p[:-5].rsplit("-", 1)[1]) for p in glob.glob(os.path.join(out, "*-*-*.rate"))})


def _median_run(runs):
    """The run with the median calls per CPU-second (its wake-up parts are the ones shown)."""
    ok = sorted((r for r in runs if r and r.get("per_cpu_s")), key=lambda r: r["per_cpu_s"])
    return ok[len(ok) // 2] if ok else None


def transport_figures(work, figure, mmm):
    """Two rows per transport section that ran (the hold call, the wake-up path); nothing otherwise."""
    for transport in ("tls", "ws"):
        out = os.path.join(work, f"sip-{transport}")
        rate, seconds, _ = _plan(out)
        if rate is None:
            continue
        label = LABEL[transport]
        missing = "TLS: -t l1 is not built in" if transport == "tls" else "WebSocket"
        no_peer = (f"SIPp: no peer (Debian's SIPp 3.6.1 has no {missing}); compared with callstorm over TCP in the "
                   "same run")
        common = (f"One Kamailio (deploy/kamailio/kamailio.cfg, WITH_PUSH, "
                  + ("WITH_TLS with a certificate for 127.0.0.1 from the section's own CA, the devices verifying it "
                     "(target.sip.ca)" if transport == "tls" else "WITH_WEBSOCKET, a ws listener")
                  + f") on the server core; callstorm on the client core. {rate} calls/s for {seconds} s per run, "
                  "the two transports alternating, the order rotated by round. CPU: user + system of the whole "
                  f"callstorm process (GNU time). {no_peer}. ")
        for call, scenario, what in (("hold", "sip-hold.yaml", "the SIP hold call, devices awake (one connection "
                                      "each, kept)"),
                                     ("wake", "sip-hold-wake.yaml", "the push wake-up path, devices asleep (every "
                                      "wake: a new connection, " + ("a full TLS handshake" if transport == "tls"
                                                                     else "an HTTP Upgrade") + ", a REGISTER)")):
            runs = {t: [run(out, f"{call}-{t}-{r}") for r in rounds(out)] for t in ("tcp", transport)}
            on, off = ([x["per_cpu_s"] if x else None for x in runs[t]] for t in (transport, "tcp"))
            if not mmm(on):
                continue
            ratios = [a / b for a, b in zip(on, off) if a and b]
            mid_on, mid_off = _median_run(runs[transport]), _median_run(runs["tcp"])
            held = [x["held"] for x in runs[transport] if x]
            command = (f"taskset -c 0 callstorm run {scenario} --workers 1 --quiet (Benchmarks/scenarios/{scenario}, "
                       f"transport: {transport}, the bench's Kamailio, rate {rate}/s for {seconds} s)")
            # The wake-up's parts (the median run's of each transport), shown after the row's figures.
            detail = (f"wake-up p50/p99 over {label}: {parts_text(mid_on)}; over TCP: {parts_text(mid_off) or '–'}; "
                      f"REGISTERs (every wake's and the first) per client CPU-second: {label} "
                      f"{_rate(mid_on)}, TCP {_rate(mid_off)}" if call == "wake" and parts_text(mid_on) else None)
            figure(f"sip_{transport}_{call}", f"SIP over {label}: calls per client CPU-second, {what}, vs the same "
                   "over TCP (SIPp: no peer)",
                   {"name": f"callstorm over {label}", "unit": "calls/CPU-s", **mmm(on), "command": command},
                   {"name": "callstorm over TCP, same run (SIPp: no peer)", "unit": "calls/CPU-s",
                    **(mmm(off) or {}), "command": command.replace(f"transport: {transport}", "transport: tcp")},
                   ratios, goal=f"held over {label} at {rate} calls/s (issue 35)", meets=bool(held) and all(held),
                   extra={"runs": runs, **({"detail": detail} if detail else {})},
                   note=common + "Runs: " + "; ".join(f"{t} round {i + 1}: {line(x)}" for t in (transport, "tcp")
                                                     for i, x in enumerate(runs[t])) + ".")


def main(argv):
    if len(argv) == 4 and argv[1] == "one":
        print(line(run(argv[2], argv[3])))
    elif len(argv) == 3 and argv[1] == "summary":
        out = argv[2]
        for r in rounds(out):
            for name in sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(out, f"*-{r}.rate"))):
                print(f"{name}: {line(run(out, name))}")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
