"""Which side set a callstorm SIP run's limit (issue 33: "say in the results which side set the limit"): the client
(callstorm on its one core) or the server (the bench's Kamailio on the other), from what bench-sip.sh kept of both.

The client's sign: its scheduler lag p99 above the hold rule's 10 ms (the arrivals it could not start on time), with
how busy it kept its core (CPU ÷ wall of the whole process, start-up and drain included, so below 100 % even when
full during the load). The server's signs (scripts/bench-sip-server-sampler.py, NAME.server): datagrams its UDP
socket dropped (its SIP workers did not read them in time), its core nearly full (≥ 90 % of the run's wall time in
Kamailio's processes), or its SIP workers waiting in poll a quarter of the time or more (an outside call such as
a synchronous HTTP push: before the push went to task workers, the gateway's answer, `poll_schedule_timeout`)."""
import json
import os

SERVER_BUSY, WORKERS_POLLING, CLIENT_LAG_MS = 0.9, 0.25, 10.0
# Wait channels of a process blocked on an outside call (poll, select, a TCP receive) rather than on its own work
# (the next datagram, the CPU, a shared-memory lock: futex).
POLL_WAITS = ("poll_schedule_timeout", "do_sys_poll", "do_select", "sk_wait_data", "wait_woken")


def server_side(outdir, name):
    """Kamailio's side of one run (NAME.server, the sampler's JSON); None when it was not sampled."""
    try:
        return json.load(open(os.path.join(outdir, name + ".server")))
    except (OSError, ValueError):
        return None


def _polling(server):
    """The SIP workers' share of samples blocked on an outside call."""
    states = server.get("udp_worker_states") or {}
    return round(sum(v for k, v in states.items() if k.startswith(POLL_WAITS)), 3)


def server_text(server):
    """Kamailio's figures for a run, as a note says them."""
    if server is None:
        return "Kamailio not sampled"
    states = server.get("udp_worker_states") or {}
    return (f"Kamailio: {100 * (server.get('core_busy') or 0):.0f} % of its core, its {server.get('udp_workers', 0)} "
            f"SIP workers waiting for a datagram {100 * server.get('udp_workers_on_datagrams', 0):.0f} % of samples, "
            f"runnable {100 * states.get('running', 0):.0f} %, in poll {100 * _polling(server):.0f} %, "
            f"UDP socket drops {server.get('udp_drops', 0):,}, largest backlog "
            f"{server.get('udp_max_queue_bytes', 0) / 1024:,.0f} KB")


def limit(run, server):
    """(who, why): who is "neither" (held), "callstorm", "Kamailio", "both" or "unknown"."""
    if run is None:
        return "unknown", "the run left no counters"
    if run["held"]:
        return "neither", "held"
    client = run["lag_p99_ms"] is not None and run["lag_p99_ms"] > CLIENT_LAG_MS
    signs = []
    if server is not None:
        if server.get("udp_drops", 0) > 0:
            signs.append(f"its UDP socket dropped {server['udp_drops']:,} datagrams")
        if (server.get("core_busy") or 0) >= SERVER_BUSY:
            signs.append(f"its core {100 * server['core_busy']:.0f} % busy")
        if _polling(server) >= WORKERS_POLLING:
            signs.append(f"its SIP workers waited in poll {100 * _polling(server):.0f} % of samples")
    why = []
    if client:
        busy = run.get("busy_percent")
        why.append(f"callstorm's scheduler lag p99 {run['lag_p99_ms']:g} ms"
                   + (f" with its core {busy} % busy over the whole process" if busy is not None else ""))
    if signs:
        why.append("Kamailio: " + ", ".join(signs))
    who = {(True, True): "both", (True, False): "callstorm", (False, True): "Kamailio"}.get((client, bool(signs)))
    return who or "unknown", "; ".join(why) or "completed too few calls with neither side's sign"


def limit_text(run, server):
    """One sentence for a note: which side set the limit, why, and Kamailio's figures."""
    who, why = limit(run, server)
    head = {"neither": "Neither side at its limit (held)", "both": "The limit: both sides",
            "callstorm": "The limit: callstorm's client core", "Kamailio": "The limit: Kamailio (the server side)",
            "unknown": "The limit: not told by either side's signs"}[who]
    return f"{head}{'' if who == 'neither' else f' ({why})'}. {server_text(server)}."
