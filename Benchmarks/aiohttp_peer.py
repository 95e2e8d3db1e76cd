"""`make bench`, the second peer of the Locust comparison: the flow of Benchmarks/locustfile.py as a plain asyncio
loop over aiohttp (the fastest Python HTTP client installed here), so Locust is not the only anchor.

Each of USERS coroutines registers a caller and a callee with the reference target once, then loops
start → join → end (docs/PROTOCOL.md) until SECONDS have passed since the loop began; a sequence whose three
answers were 201, 200 and 200 counts as one completed call. One connection pool shared by the users, at most one
connection each (keep-alive), like FastHttpUser's one connection per user.

usage: aiohttp_peer.py URL USERS SECONDS OUT.json   (writes completed, failed, loop_seconds, users, client)"""
import asyncio
import json
import sys
import time

import aiohttp


def handle(n):
    return {"kind": "phoneNumber", "value": f"+1666{n:07d}", "displayName": f"Peer {n}"}


async def register(session, url, n):
    async with session.post(f"{url}/v1/devices", json={"id": f"peer-{n}", "handle": handle(n),
                                                       "apnsToken": f"{n + 10_000_000:064x}"}) as r:
        await r.read()
        if r.status >= 300:
            raise RuntimeError(f"registering peer-{n} answered {r.status}: is the reference target at {url}?")


async def one_call(session, url, caller, callee):
    """One start → join → end sequence; whether all three answered as the protocol says."""
    body = {"caller": f"peer-{caller}", "handles": [handle(callee)], "video": False}
    async with session.post(f"{url}/v1/conversations", json=body) as r:
        if r.status != 201:
            await r.read()
            return False
        cid = (await r.json(content_type=None))["id"]
    async with session.post(f"{url}/v1/conversations/{cid}/join", json={"device": f"peer-{callee}"}) as r:
        await r.read()
        joined = r.status == 200
    async with session.post(f"{url}/v1/conversations/{cid}/end", json={"device": f"peer-{caller}"}) as r:
        await r.read()
        return joined and r.status == 200


async def user(session, url, index, deadline, counts):
    caller, callee = 2 * index, 2 * index + 1
    while time.monotonic() < deadline:
        try:
            ok = await one_call(session, url, caller, callee)
        except aiohttp.ClientError:
            ok = False
        counts["completed" if ok else "failed"] += 1


async def main(url, users, seconds, out):
    counts = {"completed": 0, "failed": 0}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=users)) as session:
        # Registration first and not timed, as Locust's on_start is not a call; then the loop's window.
        await asyncio.gather(*(register(session, url, n) for n in range(2 * users)))
        began = time.monotonic()
        await asyncio.gather(*(user(session, url, i, began + seconds, counts) for i in range(users)))
        loop_seconds = time.monotonic() - began
    with open(out, "w") as f:
        json.dump({**counts, "loop_seconds": loop_seconds, "users": users,
                   "client": f"aiohttp {aiohttp.__version__}, asyncio, Python {sys.version.split()[0]}"}, f)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1].rstrip("/"), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]))
