"""The socket section's figures (scripts/bench-sockets.sh's files in WORK/sockets), for bench-results.py.

Rows are judged only on a quiet machine: the 1-minute load average before the section below 1, and during the
phase a row measures (opening, the storm, the peer's opening) the load the rest of the machine added (runnable
tasks in /proc/stat less the bench's own threads, sampled every 0.5 s by bench-load-sampler.py) averaging below 1;
a row comparing two phases needs both. Otherwise the row says "not judged" with the figures."""
import glob
import math
import os
import statistics


def load_judgement(d, phase, lo=None, hi=None, other_before=None):
    """(judged, text) for the samples of one phase (epoch ms in [lo, hi)): the load before the section and the
    others' load during the phase. `other_before`, when the suite's load rule could replay it, is the load average
    of other work alone at the section's start: the raw one also counts the suite's own earlier sections."""
    try:
        raw = float(open(os.path.join(d, "loadavg-before")).read().split()[0])
    except (OSError, ValueError, IndexError):
        raw = None
    before = other_before if other_before is not None else raw
    others = []
    for line in open(os.path.join(d, "load-samples")) if os.path.exists(os.path.join(d, "load-samples")) else []:
        parts = line.split()
        if len(parts) == 4 and (lo is None or int(parts[0]) >= lo) and (hi is None or int(parts[0]) < hi):
            others.append(max(0, int(parts[2]) - int(parts[3])))
    if before is None or not others:
        return False, f"{phase}: load not recorded"
    during = statistics.mean(others)
    before_text = (f"other work's load average {before:.2f} before the section (load average {raw:g} with the "
                   f"suite's own)" if other_before is not None and raw is not None
                   else f"load average {before:g} before the section")
    return before < 1 and during < 1, (f"{phase}: {before_text}; other work's runnable "
                                       f"tasks during it, the bench's own aside: mean {during:.2f}, max {max(others)} "
                                       f"over {len(others)} samples")


def phases(d, other_before=None):
    """Judgements of the three phases: opening (until the drop), the storm (until the clients were stopped), the
    peer (after)."""
    storm_ms = int(open(os.path.join(d, "storm-start-ms")).read())
    stop = os.path.join(d, "stop")
    stop_ms = int(os.path.getmtime(stop) * 1000) if os.path.exists(stop) else None
    return (load_judgement(d, "opening", hi=storm_ms, other_before=other_before),
            load_judgement(d, "storm", storm_ms, stop_ms, other_before=other_before),
            load_judgement(d, "peer", lo=stop_ms, other_before=other_before))


def storm(d, n, load):
    """Seconds from the drop until ≥ 99 % and 100 % were back (clients' view), and the servers' accept rates."""
    start = int(open(os.path.join(d, "storm-start-ms")).read())
    reopened = []
    for path in sorted(glob.glob(os.path.join(d, "hold-*.json"))):
        reopened += (load(path) or {}).get("reopened_ms", [])
    reopened.sort()
    need = math.ceil(0.99 * n)
    t99 = (reopened[need - 1] - start) / 1000 if len(reopened) >= need else None
    t100 = (reopened[-1] - start) / 1000 if len(reopened) >= n else None
    before = sum((load(p) or {}).get("accepted", 0) for p in glob.glob(os.path.join(d, "server-before-*.json")))
    samples = []
    for line in open(os.path.join(d, "server-samples")) if os.path.exists(os.path.join(d, "server-samples")) else []:
        t, _, accepted = (int(x) for x in line.split())
        samples.append((t, accepted))
    mean = peak = None
    if samples:
        mean = (samples[-1][1] - before) / max((samples[-1][0] - start) / 1000, 0.001)
        rates, j = [], 0
        for i in range(len(samples)):
            while j < i and samples[i][0] - samples[j][0] > 1000:
                j += 1
            if j > 0 and samples[i][0] - samples[j - 1][0] >= 1000:
                rates.append((samples[i][1] - samples[j - 1][1]) / ((samples[i][0] - samples[j - 1][0]) / 1000))
        peak = max(rates) if rates else mean
    try:
        answered = (int(open(os.path.join(d, "drops-answered-ms")).read()) - start) / 1000
    except (OSError, ValueError):
        answered = None
    return {"seconds_to_99": t99, "drop_answered_after_seconds": answered, "seconds_to_all": t100,
            "reopened": len(reopened),
            "accept_rate_mean": mean, "accept_rate_peak": peak, "accepted_in_storm": samples[-1][1] - before
            if samples else None}


def socket_figures(work, figure, load_json, mmm, other_before=None):
    """Adds the section's rows through bench-results.py's `figure`, reading files with its `load_json` and
    summarising with its `mmm` (min / median / max, {} when there is nothing); `other_before` as in
    `load_judgement`."""
    load = load_json

    def summary(values):
        return mmm(values) or {}

    d = os.path.join(work, "sockets")
    settings = load(os.path.join(d, "settings.json"))
    holds = [load(p) for p in sorted(glob.glob(os.path.join(d, "hold-*.json")))]
    holds = [h for h in holds if h]
    if not settings or not holds:
        return
    n, peer_n, shards = settings["sockets"], settings["peer_sockets"], settings["shards"]
    peers = [p for p in (load(x) for x in sorted(glob.glob(os.path.join(d, "peer-*.json")))) if p and "sockets" in p]
    (open_ok, open_text), (storm_ok, storm_text), (peer_ok, peer_text) = phases(d, other_before)
    load_text = f"{open_text}; {storm_text}; {peer_text}"

    def suffix(ok, text):
        return "" if ok else f" (not judged: {text})"
    opened = sum(h["sockets"] for h in holds)
    per_socket = [(h["rss_open_bytes"] - h["rss_base_bytes"]) / h["sockets"] for h in holds]
    ours_rss = sum(h["rss_open_bytes"] - h["rss_base_bytes"] for h in holds) / opened
    heap = sum(h["heap_open_bytes"] - h["heap_base_bytes"] for h in holds) / opened
    peer_open = sum(p["sockets"] for p in peers)
    peer_rss = sum(p["rss_open_bytes"] - p["rss_base_bytes"] for p in peers) / peer_open if peer_open else None
    shards_text = f"{shards} target + client pair{'s' if shards > 1 else ''} (file-descriptor limit " \
                  f"{settings['fd_limit']:,} per process)"
    command = (f"callstorm target --tls --admin --registrations FILE (taskset -c 1); ws-bench hold --prefix "
               f"wss://127.0.0.1:PORT/v1/events?device=d --count N --ca CA --window {settings['window']} "
               f"(taskset -c 0); scripts/bench-sockets.sh, WS_SOCKETS={n}")
    peer_command = f"python3 Benchmarks/ws_peer.py (taskset -c 0, window {settings['window']}, ping_interval=None)"
    peer_name = (f"Python websockets {peers[0]['websockets']} (asyncio, Python {peers[0]['python']}), "
                 f"{peer_open:,} sockets") if peers else "Python websockets (not run)"
    common = {"sockets": n, "peer_sockets": peer_n, "shards": shards, "load": load_text,
              "judged": {"opening": open_ok, "storm": storm_ok, "peer": peer_ok}}
    figure("ws_idle_rss", f"client RSS per idle wss socket beyond the base ({opened:,} sockets, TLS 1.3)",
           {"name": "WebSocketClientPool (ws-bench hold)", "unit": "bytes/socket", **summary(per_socket),
            "command": command},
           {"name": peer_name, "unit": "bytes/socket", **summary([peer_rss]), "command": peer_command},
           [ours_rss / peer_rss] if peer_rss else None,
           goal="≤ 8 KB per socket including TLS (OpenSSL 3.0 keeps ~19 KB per idle session)"
                + suffix(open_ok, open_text), meets=(ours_rss <= 8192) if open_ok else None,
           extra={**common, "bytes_per_socket": ours_rss, "malloc_in_use_per_socket": heap,
                  "peer_bytes_per_socket": peer_rss},
           note=f"Sockets over {shards_text}. RSS after all are open, past the pool's 1 s sweep (idle TLS sessions "
                "release their record buffers) and malloc_trim, minus RSS before the first open; the peer the same "
                "(gc.collect and malloc_trim). Min/median/max are over the shards. " + load_text + ".")
    ours_rate = [h["sockets"] / h["open_seconds"] for h in holds if h["open_seconds"]]
    peer_rate = [p["sockets"] / p["open_seconds"] for p in peers if p.get("open_seconds")]
    open_seconds = max(h["open_seconds"] for h in holds)
    figure("ws_open", f"opening {n:,} idle wss sockets: sockets opened per second (all open in "
                      f"{open_seconds:.1f} s)",
           {"name": "WebSocketClientPool", "unit": "opens/s", **summary([opened / open_seconds]), "command": command},
           {"name": peer_name, "unit": "opens/s",
            **summary([peer_open / max(p["open_seconds"] for p in peers)] if peers else []), "command": peer_command},
           [(opened / open_seconds) / (peer_open / max(p["open_seconds"] for p in peers))] if peers else None,
           goal=None if open_ok and peer_ok else "measured (no goal)" + suffix(False, f"{open_text}; {peer_text}"),
           extra={**common, "open_seconds": open_seconds, "per_shard_opens_per_second": ours_rate,
                             "peer_per_shard_opens_per_second": peer_rate},
           note=f"All shards open at once, at most {settings['window']} handshakes in flight per client; the "
                "targets share one core, the clients the other. " + load_text + ".")
    ours_cpu = sum(h["open_cpu_seconds"] for h in holds) / opened * 1000
    peer_cpu = sum(p["open_cpu_seconds"] for p in peers) / peer_open * 1000 if peer_open else None
    figure("ws_open_cpu", "client CPU-seconds per 1,000 wss opens (TCP + TLS 1.3 + Upgrade)",
           {"name": "WebSocketClientPool", "unit": "CPU-s/1,000 opens", **summary([ours_cpu]), "command": command},
           {"name": peer_name, "unit": "CPU-s/1,000 opens", **summary([peer_cpu]), "command": peer_command},
           [ours_cpu / peer_cpu] if peer_cpu else None, extra=common,
           goal=None if open_ok and peer_ok else "measured (no goal)" + suffix(False, f"{open_text}; {peer_text}"),
           note="User + system CPU of the client process over the opening (getrusage; Python: process_time). "
                + load_text + ".")
    s = storm(d, opened, load)
    figure("ws_storm", f"reconnect storm: the targets drop all {opened:,} sockets at once; seconds until ≥ 99 % "
                       "are back",
           {"name": "WebSocketClientPool, full-jitter backoff", "unit": "s", **summary([s["seconds_to_99"]]),
            "command": command + "; curl -X POST https://127.0.0.1:PORT/admin/drop-event-sockets"},
           {"name": "the targets' accept rate (mean over the storm)", "unit": "sockets/s",
            **summary([s["accept_rate_mean"]])}, None,
           goal=None if storm_ok else "measured (no goal)" + suffix(False, storm_text),
           extra={**common, **s, "backoff_ms": settings["backoff_ms"], "backoff_cap_ms": settings["backoff_cap_ms"]},
           note=f"Dropped abruptly (no close frame). Each socket reconnects after a delay uniform in "
                f"[0, min({settings['backoff_cap_ms']} ms, {settings['backoff_ms']} ms · 2^k)) before attempt k "
                "(seeded per device); ≥ 99 % counted by the clients' completed handshakes from the moment the drops "
                "were ordered; the accept rate from GET /admin/event-sockets every 250 ms (peak over 1 s: "
                f"{(s['accept_rate_peak'] or 0):,.0f}/s). The drop requests were answered after "
                f"{(s['drop_answered_after_seconds'] or 0):.1f} s. At most {settings['window']} handshakes in "
                "flight per client, reconnects included (one process plays thousands of phones). " + load_text + ".")
