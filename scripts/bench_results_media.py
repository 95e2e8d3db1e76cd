#!/usr/bin/env python3
"""The media section's figures (scripts/bench-media.sh's files in WORK/media), for bench-results.py: RTP on the
same call, callstorm vs SIPp 3.6.1's rtp_stream, through one Kamailio and one rtpengine, and what media costs
callstorm per call.

Packets: what the relay relayed during a run (rtpengine's ng `statistics`, totalstatistics.relayedpackets, read
before and after it): every packet either side sent that reached the relay, the same yardstick for both. Per
client CPU-second: those packets ÷ the user + system seconds of the client processes (GNU time: SIPp's UAC, UAS and
its REGISTER run; callstorm's whole process, which also receives every packet and measures loss, jitter, MOS and
one-way audio; SIPp does not read what reaches it). A stream is one end's audio of one call, 50 packets a second:
streams per client core = packets per client CPU-second ÷ 50, the streams one fully busy core would keep (the run
itself holds about 2 × rate × talk at once, said in the note). callstorm's own send lag (`media.send_lag_max`, per
stream the largest lag of one send behind its plan, p99 over streams) says whether it kept its schedule there.
Cost per call: calls per client CPU-second at media.share 100 % and 10 % against the same run without media, per
round; instructions per call with media are the sip-instructions section's (scripts/bench-sip-instructions.sh).

usage: bench_results_media.py relayed NGPORT | one-sipp OUT NAME | one-callstorm OUT NAME | held OUT NAME
       | summary OUT"""
import csv
import glob
import json
import os
import socket
import statistics
import sys
import time

PACKETS_PER_STREAM_SECOND = 50
# The send lag a run may show and still hold its streams (issue 34: 1 ms); MEDIA_HELD_LAG_MS to try the ladder on a
# machine too busy for that (a run so judged says so in its row).
SEND_LAG_GOAL_MS = float(os.environ.get("MEDIA_HELD_LAG_MS", "1"))


def _bdecode(data, i=0):
    """One bencoded value at data[i:] and the index after it (rtpengine's ng answers)."""
    c = data[i:i + 1]
    if c == b"d" or c == b"l":
        i, items = i + 1, []
        while data[i:i + 1] != b"e":
            value, i = _bdecode(data, i)
            items.append(value)
        if c == b"l":
            return items, i + 1
        return {items[k].decode(): items[k + 1] for k in range(0, len(items), 2)}, i + 1
    if c == b"i":
        end = data.index(b"e", i)
        return int(data[i + 1:end]), end + 1
    colon = data.index(b":", i)
    n = int(data[i:colon])
    return data[colon + 1:colon + 1 + n], colon + 1 + n


def relayed(port):
    """rtpengine's total of relayed packets (ng `statistics`), asked over UDP on 127.0.0.1:port."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(1)
    # A fresh cookie each time: rtpengine answers a cookie it has seen from its cache (the first answer again).
    s.sendto(f"bench{os.getpid()}-{time.monotonic_ns()} d7:command10:statisticse".encode(), ("127.0.0.1", int(port)))
    answer = s.recv(1 << 20)
    value, _ = _bdecode(answer, answer.index(b" ") + 1)
    return value["statistics"]["totalstatistics"]["relayedpackets"]


def _cpu(path):
    try:
        fields = open(path).read().strip().splitlines()[-1].split()
        return float(fields[0]) + float(fields[1])
    except (OSError, ValueError, IndexError):
        return None


def _rss_kib(path):
    """Peak RSS (KiB, GNU time's %M) of a run; None when missing."""
    try:
        return int(open(path).read().strip().splitlines()[-1].split()[2])
    except (OSError, ValueError, IndexError):
        return None


def _delta(path):
    try:
        a, b = (int(x) for x in open(path).read().split())
        return b - a
    except (OSError, ValueError):
        return None


def _plan(out):
    try:
        rate, seconds, talk = (int(x) for x in open(os.path.join(out, "plan")).read().split())
        return rate, seconds, talk
    except (OSError, ValueError):
        return None, None, None


def _per(a, b):
    return a / b if a is not None and b else None


def sipp_run(out, name):
    """One SIPp run: calls, CPU, relayed packets; None without its UAC statistics."""
    d = os.path.join(out, name)
    try:
        rows = list(csv.DictReader(open(os.path.join(d, "uac-stat.csv")), delimiter=";"))
    except OSError:
        return None
    if not rows:
        return None
    cpus = [_cpu(os.path.join(d, f"{p}.time")) for p in ("uac", "uas", "reg")]
    cpu = sum(c for c in cpus if c) if cpus[0] and cpus[1] else None
    packets = _delta(os.path.join(d, "relayed"))
    rate, seconds, _ = _plan(out)
    return {"completed": int(rows[-1].get("SuccessfulCall(C)", 0)), "failed": int(rows[-1].get("FailedCall(C)", 0)),
            "planned": rate * seconds if rate else None, "cpu_seconds": cpu, "relayed_packets": packets,
            "packets_per_cpu_s": _per(packets, cpu), "calls_per_cpu_s": _per(int(rows[-1].get("SuccessfulCall(C)", 0)),
                                                                                cpu)}


def _summary(out, name):
    path = os.path.join(out, name, "summary.csv")
    return {row["metric"]: row for row in csv.DictReader(open(path))} if os.path.exists(path) else {}


def cs_run(out, name):
    """One callstorm run: calls, CPU, relayed and own packets, send lag; None without its summary.json."""
    try:
        counters = json.load(open(os.path.join(out, name, "summary.json")))["counters"]
    except (OSError, ValueError, KeyError):
        return None
    cpu = _cpu(os.path.join(out, name + ".time"))
    packets = _delta(os.path.join(out, name + ".relayed"))
    lag = _summary(out, name).get("media.send_lag_max", {}).get("p99")
    rate, seconds, talk = _plan(out)
    try:  # a ladder rung's own rate
        rate = int(open(os.path.join(out, name + ".rate")).read())
    except (OSError, ValueError):
        pass
    completed = counters.get("calls.completed", 0)
    return {"rate": rate, "streams_at_once": 2 * rate * talk / 1000 if rate and talk else None,
            "completed": completed, "planned": rate * seconds if rate else None, "cpu_seconds": cpu,
            "relayed_packets": packets, "packets_sent": counters.get("media.packets_sent", 0),
            "packets_received": counters.get("media.packets_received", 0),
            "one_way": counters.get("media.one_way", 0), "streams": counters.get("media.streams_opened", 0),
            "send_lag_max_p99_ms": float(lag) if lag else None,
            "rss_kib": _rss_kib(os.path.join(out, name + ".time")),
            "packets_per_cpu_s": _per(packets, cpu), "calls_per_cpu_s": _per(completed, cpu)}


def held(run):
    """A run at media.share 100 % held its streams: ≥ 99 % of its calls completed, send lag p99 ≤ 1 ms."""
    return bool(run and run["planned"] and run["completed"] >= 0.99 * run["planned"]
                and run["send_lag_max_p99_ms"] is not None and run["send_lag_max_p99_ms"] <= SEND_LAG_GOAL_MS)


def ladder(out):
    """[(rate, run)] of round 1's run at MEDIA_RATE and the ladder's rungs above it, by rate."""
    runs = [cs_run(out, "cs100-1")] + [cs_run(out, os.path.basename(p)[:-5])
                                       for p in glob.glob(os.path.join(out, "ladder-*.rate"))]
    return sorted(((r["rate"], r) for r in runs if r), key=lambda x: x[0])


def held_figure(out, figure, common, cs_cmd):
    """The streams callstorm held at once per client core: the highest rung whose send lag p99 stayed ≤ 1 ms."""
    rungs = ladder(out)
    if not rungs:
        return
    kept = [r for _, r in rungs if held(r)]
    top = kept[-1] if kept else None
    figure("media_streams_held", f"Media: RTP streams callstorm held at once on one client core (send lag p99 ≤ "
           f"{SEND_LAG_GOAL_MS:g} ms, ≥ 99 % of calls completed; SIPp reports no send lag: no peer)",
           {"name": "callstorm SIP devices, both ends, media.share 100 %", "unit": "streams at once",
            **_one(top["streams_at_once"] if top else 0), "command": cs_cmd},
           {"name": "SIPp 3.6.1: no peer (it reports no send lag)", "unit": "streams at once"}, None,
           goal=f"callstorm held the first rung (issue 34: streams held per client core with its send lag p99 ≤ "
                f"{SEND_LAG_GOAL_MS:g} ms)",
           meets=bool(kept) and rungs[0][1] is kept[0],
           extra={"rungs": [{"rate": rate, "held": held(r), **r} for rate, r in rungs]},
           note=common + "A rung runs only if the one below held; streams at once = 2 × rate × talk. Rungs: "
                + "; ".join(f"{rate}/s ({_fmt(r['streams_at_once'])} streams): "
                            f"{'held' if held(r) else 'did not hold'}, {line(r)}" for rate, r in rungs) + ".")


def _fmt(x, unit=""):
    return "–" if x is None else (f"{x:,.0f}" if abs(x) >= 10 else f"{x:.3g}") + unit


def line(run):
    if run is None:
        return "no figures (see its log)"
    text = (f"{run['completed']:,} of {run['planned'] or 0:,} calls, {_fmt(run['cpu_seconds'])} CPU-s, relay "
            f"relayed {_fmt(run['relayed_packets'])} packets ({_fmt(run['packets_per_cpu_s'])} per CPU-s), "
            f"{_fmt(run['calls_per_cpu_s'])} calls/CPU-s")
    if "packets_sent" in run:
        text += (f"; own count sent {run['packets_sent']:,}, received {run['packets_received']:,}, one-way "
                 f"{run['one_way']}, send lag max p99 {_fmt(run['send_lag_max_p99_ms'], ' ms')}")
    return text


def rounds(out):
    return sorted({int(p.rsplit("-", 1)[1]) for p in glob.glob(os.path.join(out, "sipp-*")) if os.path.isdir(p)}
                  | {int(p[:-5].rsplit("-", 1)[1]) for p in glob.glob(os.path.join(out, "cs*-*.rate"))})


def series(out):
    """{variant: [run by round]} for sipp, cs100, cs10, cs0 (None where a run left nothing)."""
    runs = {"sipp": [], "cs100": [], "cs10": [], "cs0": []}
    for r in rounds(out):
        runs["sipp"].append(sipp_run(out, f"sipp-{r}"))
        for v in ("cs100", "cs10", "cs0"):
            runs[v].append(cs_run(out, f"{v}-{r}"))
    return runs


def _values(runs, key):
    return [r[key] if r else None for r in runs]


def _ratios(a, b):
    return [x / y for x, y in zip(a, b) if x is not None and y]


def media_figures(work, figure, mmm):
    """The section's four rows; nothing when it did not run."""
    out = os.path.join(work, "media")
    rate, seconds, talk = _plan(out)
    if rate is None:
        return
    runs = series(out)
    cs_cmd = (f"taskset -c 0 callstorm run sip-media.yaml --workers 1 --quiet (Benchmarks/scenarios/sip-media.yaml: "
              f"{rate} calls/s for {seconds} s, {talk} ms of PCMU both ways, media.share 100 %)")
    sipp_cmd = ("taskset -c 0 sipp -sf Benchmarks/scenarios/sipp-uas-media.xml -mp PORT, and taskset -c 0 sipp -sf "
                f"sipp-uac-media.xml -s sipp-uas KAMAILIO -d {talk} -r {rate} -m {rate * seconds} (rtp_stream: a "
                "raw PCMU file, looped, payload 0)")
    at_once = 2 * rate * talk / 1000
    common = (f"One Kamailio (deploy/kamailio/kamailio.cfg, -A WITH_RTPENGINE) and one rtpengine 10.5 (userspace, "
              f"--table=-1) on the server core; every client on the client core. {rate} calls/s for {seconds} s, "
              f"{talk} ms of audio each: about {at_once:,.0f} streams at once per side. Packets: the relay's own "
              "count of packets relayed during each run (ng `statistics`), the same yardstick for both; CPU: user + "
              "system of the client processes (GNU time). SIPp only sends (Debian's 3.6.1 rtp_stream; what reaches "
              "it is not read); callstorm also receives every packet and measures loss, jitter, MOS and one-way "
              "audio. ")
    cs_pkts, sipp_pkts = _values(runs["cs100"], "packets_per_cpu_s"), _values(runs["sipp"], "packets_per_cpu_s")
    lags = [x for x in _values(runs["cs100"], "send_lag_max_p99_ms") if x is not None]
    lag = max(lags) if lags else None
    rounds_text = "; ".join(f"round {i + 1}: SIPp {line(s)}; callstorm {line(c)}"
                            for i, (s, c) in enumerate(zip(runs["sipp"], runs["cs100"])))
    if mmm(cs_pkts) or mmm(sipp_pkts):
        streams = lambda xs: [x / PACKETS_PER_STREAM_SECOND if x else None for x in xs]  # noqa: E731
        # Memory per active stream: peak RSS with media at 100 % less without, over the streams held at once.
        rss = [a["rss_kib"] - b["rss_kib"] for a, b in zip(runs["cs100"], runs["cs0"])
               if a and b and a.get("rss_kib") and b.get("rss_kib")]
        per_stream = statistics.median(rss) * 1024 / at_once if rss and at_once else None
        per_packet = [1e6 / x for x in cs_pkts if x]
        detail = (f"callstorm: {_fmt(statistics.median(per_packet) if per_packet else None, ' µs')} of client CPU "
                  f"per packet (sent, received and measured), memory per active stream "
                  f"{_fmt(per_stream / 1024 if per_stream is not None else None, ' KiB')} (peak RSS at 100 % less "
                  f"without media, over ~{at_once:,.0f} streams at once), send lag p99 {_fmt(lag, ' ms')}")
        figure("media_streams_per_core", "Media: RTP streams per client core (PCMU 20 ms, through Kamailio + "
               "rtpengine): callstorm (sends, receives, measures) vs SIPp rtp_stream (sends)",
               {"name": "callstorm SIP devices, both ends, media.share 100 %", "unit": "streams/core",
                **(mmm(streams(cs_pkts)) or {}), "command": cs_cmd},
               {"name": "SIPp 3.6.1 UAC + UAS rtp_stream", "unit": "streams/core", **(mmm(streams(sipp_pkts)) or {}),
                "command": sipp_cmd},
               _ratios(cs_pkts, sipp_pkts),
               goal=f"callstorm's send lag p99 ≤ {SEND_LAG_GOAL_MS:g} ms at this load (issue 34)",
               meets=lag is not None and lag <= SEND_LAG_GOAL_MS,
               extra={"send_lag_max_p99_ms": lag, "memory_per_stream_bytes": per_stream, "detail": detail},
               note=common + "Streams per core = relayed packets per client CPU-second ÷ 50 (one stream is one end's "
                    f"audio of one call): the streams one busy core would keep. callstorm's send lag (per stream "
                    f"the largest lag of a send behind its plan), p99 over streams, worst round: {_fmt(lag, ' ms')}. "
                    + rounds_text + ".")
        figure("media_packets_per_cpu", "Media: RTP packets per client CPU-second, callstorm vs SIPp on the same "
               "call and relay",
               {"name": "callstorm SIP devices, both ends", "unit": "packets/CPU-s", **(mmm(cs_pkts) or {}),
                "command": cs_cmd},
               {"name": "SIPp 3.6.1 UAC + UAS rtp_stream", "unit": "packets/CPU-s", **(mmm(sipp_pkts) or {}),
                "command": sipp_cmd},
               _ratios(cs_pkts, sipp_pkts), note=common + "callstorm's figure pays for receiving and measuring every "
               "packet too; SIPp's does not.")
    held_figure(out, figure, common, cs_cmd)
    off = _values(runs["cs0"], "calls_per_cpu_s")
    for variant, label in (("cs100", "100 %"), ("cs10", "10 %")):
        on = _values(runs[variant], "calls_per_cpu_s")
        if not mmm(on) or not mmm(off):
            continue
        figure(f"media_cost_{variant[2:]}", f"Media's cost per call: calls per client CPU-second at media.share "
               f"{label} vs no media (the same call, rate and relay)",
               {"name": f"callstorm, media.share {label}", "unit": "calls/CPU-s", **mmm(on),
                "command": cs_cmd.replace("100 %", label)},
               {"name": "callstorm, no media section", "unit": "calls/CPU-s", **mmm(off),
                "command": cs_cmd.replace(", media.share 100 %", ", the media section removed")},
               _ratios(on, off),
               note=common + "Ratio per round: calls per CPU-second with media ÷ without (1 − ratio is the share of a "
                    "call's client CPU media adds). Instructions per call with media: the sip-instructions "
                    "section's media rows. Rounds: " + "; ".join(
                        f"{label} {line(a)} / none {line(b)}" for a, b in zip(runs[variant], runs["cs0"])) + ".")


def _one(v):
    return {"min": v, "median": v, "max": v, "n": 1} if v is not None else {}


def media_instruction_figures(j, figure):
    """What media adds per call in instructions (scripts/bench-sip-instructions.sh's `callstorm_media`, the same
    hold call at media.share 100 % and 10 %, RTP straight between the devices): one row per share against the call
    without media, and the per-layer row at 100 % with each layer's increase (issue 34, acceptance 6)."""
    base, media = j["callstorm"].get("per_call"), j.get("callstorm_media") or {}
    base_layers = j["callstorm"].get("layers") or {}
    command = ("scripts/bench-sip-instructions.sh (callstorm run sip-hold.yaml + `media: { share: SHARE }` under "
               "valgrind --tool=callgrind)")
    for share in ("100%", "10%"):
        m = media.get(share)
        if not m or not m.get("per_call") or not base:
            continue
        calls = max(m["calls"][1], 1)
        media_calls = m.get("media_calls") or [0, 0]
        media_calls = media_calls if isinstance(media_calls, list) else [0, media_calls]
        packets = m.get("packets") or [0, 0]
        rtx = m.get("retransmissions_sent") or {}
        rtx_text = (f" SIP retransmissions callstorm sent (a valgrind-slowed run on a busy machine retransmits, and "
                    f"that work is not media's; compare only runs where they are alike): with media "
                    f"{'/'.join(str(x) for x in rtx.get('media', []))}, without "
                    f"{'/'.join(str(x) for x in rtx.get('no_media', []))}." if rtx else "")
        per_packet = (f" Per RTP packet handled (sent or received; the media runs' instructions beyond the runs "
                      f"without media over their packets): {m['per_packet']:,} instructions."
                      if m.get("per_packet") else "")
        figure(f"sip_instructions_media_{share[:-1]}", f"SIP with media: instructions per call at media.share "
               f"{share[:-1]} % vs the same call without media (callgrind, client only)",
               {"name": f"callstorm, media.share {share[:-1]} %", "unit": "instructions/call", **_one(m["per_call"]),
                "calls": m["calls"], "command": command.replace("SHARE", share)},
               {"name": "callstorm, no media", "unit": "instructions/call", **_one(base)}, [m["per_call"] / base],
               extra={"media": {k: v for k, v in m.items() if k != "layers"},
                      "detail": (f"{m['per_packet']:,} instructions per RTP packet handled; " if m.get("per_packet")
                                 else "") + "SIP retransmissions sent with media "
                                + "/".join(str(x) for x in rtx.get("media", [])) + ", without "
                                + "/".join(str(x) for x in rtx.get("no_media", []))},
               note=f"Deterministic for the same calls (instruction counts). Media adds {m['per_call'] - base:,} "
                    f"instructions per call on average at media.share {share[:-1]} % ({media_calls[1]} of {calls} "
                    f"calls of the longer run carried media, {media_calls[0]} of the shorter's; RTP packets sent and "
                    f"received {packets[0]:,} and {packets[1]:,}: PCMU every 20 ms from each end's answer through "
                    "the hold call, the held end silent while held, straight between the devices; under valgrind "
                    "a call lasts longer, so it carries more packets than on a quiet run). Per call = the "
                    "difference of the two runs' totals over the difference of their calls, as without media."
                    + per_packet + rtx_text)
    m = media.get("100%")
    if m and m.get("layers") and base_layers:
        layers = m["layers"]
        added = {name: layers.get(name, 0) - base_layers.get(name, 0) for name in layers}
        figure("sip_instructions_layers_media", "SIP with media (share 100 %): callstorm's instructions per call by "
               "layer, and what media adds to each",
               {"name": "callstorm SIP devices, media.share 100 %", "unit": "instructions/call",
                **_one(sum(layers.values())), "layers": layers, "added": added,
                "command": "scripts/callgrind_layers.py (from bench-sip-instructions.sh's media profiles)"},
               {"name": "callstorm, no media", "unit": "instructions/call", **_one(sum(base_layers.values()))}, None,
               note="Each layer's instructions per call with media and, in brackets, the change from the same call "
                    "without media: " + "; ".join(f"{name} {value:,} ({added[name]:+,})"
                                                  for name, value in layers.items()) + ".")


def main(argv):
    if len(argv) == 3 and argv[1] == "relayed":
        print(relayed(argv[2]))
    elif len(argv) == 4 and argv[1] == "one-sipp":
        print(line(sipp_run(argv[2], argv[3])))
    elif len(argv) == 4 and argv[1] == "held":
        print("yes" if held(cs_run(argv[2], argv[3])) else "no")
    elif len(argv) == 4 and argv[1] == "one-callstorm":
        print(line(cs_run(argv[2], argv[3])))
    elif len(argv) == 3 and argv[1] == "summary":
        for variant, runs in series(argv[2]).items():
            print(f"{variant}: " + " | ".join(line(r) for r in runs))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
