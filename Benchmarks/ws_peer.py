#!/usr/bin/env python3
"""The peer of `make bench`'s socket section: a Python `websockets` client pool (asyncio) opening the same idle
wss sockets as `ws-bench hold`, with the same window of handshakes in flight, and reporting the same figures:
RSS growth per socket and CPU-seconds spent opening them.

usage: ws_peer.py PREFIX FIRST COUNT CAFILE WINDOW OUT.json
socket i connects to PREFIX<FIRST+i>. Pings are off (ping_interval=None) so the sockets stay idle as ours do.
"""
import asyncio
import ctypes
import gc
import json
import os
import ssl
import sys
import time

import websockets
from websockets.asyncio.client import connect

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def trim():
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass


async def open_all(prefix, first, count, context, window):
    sockets, failures = [], 0
    gate = asyncio.Semaphore(window)

    async def one(i):
        nonlocal failures
        async with gate:
            for attempt in range(6):
                try:
                    sockets.append(await connect(f"{prefix}{first + i}", ssl=context, ping_interval=None,
                                                 open_timeout=30))
                    return
                except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException):
                    failures += 1
                    await asyncio.sleep(0.5 * 2 ** attempt)

    await asyncio.gather(*(one(i) for i in range(count)))
    return sockets, failures


async def main():
    prefix, first, count, cafile, window, out = sys.argv[1:7]
    first, count, window = int(first), int(count), int(window)
    context = ssl.create_default_context(cafile=cafile)
    trim()
    base = rss()
    cpu0, t0 = time.process_time(), time.monotonic()
    sockets, failures = await open_all(prefix, first, count, context, window)
    seconds, cpu = time.monotonic() - t0, time.process_time() - cpu0
    await asyncio.sleep(1.5)
    trim()
    result = {"sockets": len(sockets), "wanted": count, "failures": failures, "open_seconds": seconds,
              "open_cpu_seconds": cpu, "rss_base_bytes": base, "rss_open_bytes": rss(),
              "websockets": websockets.__version__, "python": sys.version.split()[0]}
    with open(out, "w") as f:
        json.dump(result, f)
    for s in sockets:
        s.transport.abort()


if __name__ == "__main__":
    asyncio.run(main())
