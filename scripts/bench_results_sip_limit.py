"""Which side set a callstorm SIP run's limit (issue 33: "say in the results which side set the limit"): the client
(callstorm on its one core) or the server (the bench's Kamailio on the other), from what bench-sip.sh kept of both.
One verdict per run, in this order:

1. The server as the bench started it ran out of memory (NAME.server's `log_memory_lines`: Kamailio's log said so
   during the run): "Kamailio", whatever the client did; the bench's sizing, not callstorm, lost those calls.
2. Each side's CPU per call: its calls per CPU-second in this run (callstorm: completed calls ÷ its whole process's
   user + system seconds, GNU time; Kamailio: completed calls ÷ all its processes' CPU seconds, the sampler's) is
   the most calls per second its one core carries at that cost, and the planned rate ÷ that is the share of a core
   it needed. A side that needed ≥ 90 % of its core (FULL_CORE) could not carry the planned rate; when both could
   not, "both", the one that needed more named first (it is the limit the rung met; the other would meet the next).
   CPU-seconds hardly move with the machine's load; both include their side's start-up (every device's REGISTER),
   so they understate what each core carries on the calls alone, the same way for both.
3. Neither needed its core (a short burst, a socket buffer too small for one): the signs of the moment. The
   client's: its scheduler lag p99 above the hold rule's 10 ms. The server's (scripts/bench-sip-server-sampler.py,
   NAME.server): datagrams its UDP socket dropped (its SIP workers did not read them in time), its core nearly full
   (≥ 90 % of the run's wall time in Kamailio's processes), or its SIP workers waiting in poll a quarter of the time
   or more (an outside call such as a synchronous HTTP push: before the push went to task workers, the gateway's
   answer, `poll_schedule_timeout`).
Before rule 2, the server's latency (2026-12-08, stop 56: the wake rung at 1,600/s was blamed on callstorm's core
while callstorm kept its timing, lag p99 0.57 ms, and Kamailio answered REGISTERs in p99 283 ms, its one SIP worker
blocked 14 % of samples handing pushes to its two full task workers): when callstorm's scheduler lag p99 stayed
within the hold rule and the server answered slowly (the run's REGISTER p99 ≥ SERVER_SLOW_MS, which an idle
registrar answers in a few ms, or its UDP socket held ≥ SERVER_BACKLOG bytes unread), the server set this run's
limit: a device waits that long for each answer, stays busy, and calls find no idle device. Named "Kamailio", or
"both" (Kamailio first) when callstorm's cost in the run would also need its whole core at the planned rate: then
that is the limit the next run meets once the server keeps up, and the sentence says so rather than hide it.
A side whose core was full is named even when the other shows signs: a late client's catch-up bursts can overflow
the server's socket, a server that drops makes the client retransmit; the signs are then quoted as consequences."""
import json
import os

SERVER_BUSY, WORKERS_POLLING, CLIENT_LAG_MS, FULL_CORE = 0.9, 0.25, 10.0, 0.9
# The server answered slowly: a REGISTER's round trip (callstorm's `register` p99; cs-1600 awake, quiet: 6.3 ms) or
# the datagrams waiting unread in its UDP socket (cs-1600: 126 KB at most; wake-1600: 5.1 MB, ~200 ms of arrivals).
SERVER_SLOW_MS, SERVER_BACKLOG = 50.0, 1 << 20
# Wait channels of a SIP worker blocked sending: a full socket buffer, on Kamailio's async task queue (a unix
# datagram socketpair to its task workers: full when the push workers are all busy) or on a UDP send.
SEND_WAITS = ("sock_alloc_send_pskb", "unix_wait_for_peer", "sock_wait_for_wmem")
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


def _sending(server):
    """The SIP workers' share of samples blocked sending (a full queue to the push task workers)."""
    states = server.get("udp_worker_states") or {}
    return round(sum(v for k, v in states.items() if k.startswith(SEND_WAITS)), 3)


def ceilings(run, server):
    """(callstorm's, Kamailio's) calls per CPU-second in this run: the most calls per second each side's one core
    carries at the CPU per call it paid here; None where unknown."""
    completed = run.get("completed") or 0
    client = run.get("per_cpu_s")
    cpu = (server or {}).get("cpu_s")
    return client, (completed / cpu if cpu and completed else None)


def server_text(server):
    """Kamailio's figures for a run, as a note says them."""
    if server is None:
        return "Kamailio not sampled"
    states = server.get("udp_worker_states") or {}
    memory = server.get("log_memory_lines")
    busy = 100 * (server.get("core_busy") or 0)
    return (f"Kamailio: {server.get('cpu_s', 0):g} CPU-s, {busy:.0f} % of its core, its "
            f"{server.get('udp_workers', 0)} SIP workers waiting for a datagram "
            f"{100 * server.get('udp_workers_on_datagrams', 0):.0f} % of samples, runnable "
            f"{100 * states.get('running', 0):.0f} %, in poll {100 * _polling(server):.0f} %, blocked sending "
            f"{100 * _sending(server):.0f} %, UDP socket drops "
            f"{server.get('udp_drops', 0):,}, largest backlog {server.get('udp_max_queue_bytes', 0) / 1024:,.0f} KB"
            + (f", memory errors in its log {memory:,}" if memory is not None else ""))


def _signs(run, server):
    """(client's sign or None, [server's signs]) of the moment."""
    client = None
    if run["lag_p99_ms"] is not None and run["lag_p99_ms"] > CLIENT_LAG_MS:
        busy = run.get("busy_percent")
        client = (f"callstorm's scheduler lag p99 {run['lag_p99_ms']:g} ms"
                  + (f" with its core {busy} % busy over the whole process" if busy is not None else ""))
    signs = []
    if server is not None:
        if server.get("udp_drops", 0) > 0:
            signs.append(f"its UDP socket dropped {server['udp_drops']:,} datagrams")
        if (server.get("core_busy") or 0) >= SERVER_BUSY:
            signs.append(f"its core {100 * server['core_busy']:.0f} % busy")
        if _polling(server) >= WORKERS_POLLING:
            signs.append(f"its SIP workers waited in poll {100 * _polling(server):.0f} % of samples")
    return client, signs


def _need(rate, ceiling):
    """The share of one core a side needs for `rate` calls/s at `ceiling` calls per CPU-second; None if unknown."""
    return rate / ceiling if ceiling else None


def limit(run, server):
    """(who, why): who is "neither" (held), "callstorm", "Kamailio", "both" or "unknown"."""
    if run is None:
        return "unknown", "the run left no counters"
    if run["held"]:
        return "neither", "held"
    if server and server.get("log_memory_lines"):
        return "Kamailio", (f"the server the bench started ran out of memory ({server['log_memory_lines']:,} lines "
                            "in its log during the run): its sizing, not either side's CPU")
    rate = run["planned_rate"]
    client_ceiling, server_ceiling = ceilings(run, server)
    needs = {"callstorm": _need(rate, client_ceiling), "Kamailio": _need(rate, server_ceiling)}
    slow = _server_slow(run, server)
    if slow:
        need = needs["callstorm"]
        if need is None or need < FULL_CORE:
            return "Kamailio", slow
        return "both", (f"Kamailio first: {slow}; and callstorm next: at its {client_ceiling:,.0f} calls per "
                        f"CPU-second in this run (start-up and the calls it lost included) it would need {need:.2f} "
                        f"cores for {rate:,} calls/s, the limit a run meets once the server keeps up")
    full = sorted((side for side, need in needs.items() if need is not None and need >= FULL_CORE),
                  key=lambda side: -needs[side])
    client, signs = _signs(run, server)
    evidence = "; ".join(x for x in (client, ("Kamailio: " + ", ".join(signs)) if signs else None) if x)
    if full:
        parts = [f"{side} needed {needs[side]:.2f} cores for {rate:,} calls/s at its "
                 f"{(client_ceiling if side == 'callstorm' else server_ceiling):,.0f} calls per CPU-second"
                 for side in full]
        others = [f"{side} {needs[side]:.2f}" for side in needs if side not in full and needs[side] is not None]
        why = ", ".join(parts) + (f" (the other side: {others[0]})" if others else "")
        return ("both" if len(full) == 2 else full[0]), why + (f"; signs: {evidence}" if evidence else "")
    who = {(True, True): "both", (True, False): "callstorm", (False, True): "Kamailio"}.get((bool(client), bool(signs)))
    why = evidence or "completed too few calls with neither side's sign"
    if any(n is not None for n in needs.values()):
        why += "; neither needed its whole core (" + ", ".join(
            f"{side} {need:.2f} cores" for side, need in needs.items() if need is not None) + ")"
    return who or "unknown", why


def _server_slow(run, server):
    """Why the server set the run's limit by its latency while callstorm kept its timing; None when it did not."""
    lag = run.get("lag_p99_ms")
    if lag is None or lag > CLIENT_LAG_MS:
        return None
    register = run.get("register_p99_ms")
    backlog = (server or {}).get("udp_max_queue_bytes") or 0
    if (register is None or register < SERVER_SLOW_MS) and backlog < SERVER_BACKLOG:
        return None
    parts = [f"REGISTER p99 {register:g} ms" if register is not None else None,
             f"its UDP socket up to {backlog / 1024:,.0f} KB unread" if backlog else None,
             f"its SIP workers blocked sending {100 * _sending(server):.0f} % of samples (the queue to its push task "
             f"workers full)" if server and _sending(server) >= 0.05 else None]
    dropped = run.get("dropped_no_idle") or 0
    return (f"callstorm kept its timing (scheduler lag p99 {lag:g} ms) and Kamailio answered slowly: "
            + ", ".join(p for p in parts if p)
            + (f"; devices stayed busy waiting and {dropped:,} calls found no idle device" if dropped else ""))


def limit_text(run, server):
    """One sentence for a note: which side set the limit, why, and Kamailio's figures."""
    who, why = limit(run, server)
    head = {"neither": "Neither side at its limit (held)", "both": "The limit: both sides",
            "callstorm": "The limit: callstorm's client core", "Kamailio": "The limit: Kamailio (the server side)",
            "unknown": "The limit: not told by either side's signs"}[who]
    return f"{head}{'' if who == 'neither' else f' ({why})'}. {server_text(server)}."
