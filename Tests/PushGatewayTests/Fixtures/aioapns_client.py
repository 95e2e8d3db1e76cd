"""Drives callstorm's push gateway with aioapns, an APNs client no one here wrote.

aioapns has api.push.apple.com:443 built in and offers no ALPN; it is pointed at the gateway by overriding its
host and port constants and given an SSL context that trusts callstorm's local CA. Prints one JSON line per case.
"""
import argparse
import asyncio
import json
import ssl
import sys
import time
import types
import uuid

import aioapns.connection as connection
from aioapns import APNs, NotificationRequest, PushType


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--key", required=True, help="PEM file of the ES256 signing key")
    p.add_argument("--key-id", required=True)
    p.add_argument("--team", required=True)
    p.add_argument("--bundle", required=True)
    p.add_argument("--token", required=True)
    return p.parse_args()


def client(args, key):
    return APNs(key=key, key_id=args.key_id, team_id=args.team, topic=args.bundle + ".voip",
                use_sandbox=False, ssl_context=ssl.create_default_context(cafile=args.ca), max_connection_attempts=1)


async def send(apns, case, **kwargs):
    request = NotificationRequest(notification_id=str(uuid.uuid4()), **kwargs)
    result = await apns.send_notification(request)
    return {"case": case, "status": str(result.status), "reason": result.description or "",
            "sent_id": request.notification_id, "got_id": result.notification_id or ""}


async def main():
    args = parse()
    connection.APNsProductionClientProtocol.APNS_SERVER = "127.0.0.1"
    connection.APNsTLSClientProtocol.APNS_PORT = args.port
    with open(args.key) as f:
        key = f.read()
    voip = {"uuid": str(uuid.uuid4()), "handle": {"kind": "generic", "value": "alice"}}
    apns = client(args, key)
    results = [await send(apns, "voip", device_token=args.token, message=voip, push_type=PushType.VOIP)]
    many = await asyncio.gather(*[send(apns, "concurrent", device_token=args.token, message=voip,
                                       push_type=PushType.VOIP) for _ in range(20)])
    results.extend(many)
    results.append(await send(apns, "bad-token", device_token="xyz", message=voip, push_type=PushType.VOIP))
    results.append(await send(apns, "wrong-topic", device_token=args.token, message=voip, push_type=PushType.VOIP,
                              apns_topic=args.bundle))
    results.append(await send(apns, "oversized", device_token=args.token, message={"pad": "x" * 6000},
                              push_type=PushType.VOIP))
    results.append(await send(apns, "missing-push-type", device_token=args.token, message={"aps": {}},
                              apns_topic=args.bundle))
    # A second client whose token claims to be two hours old: the clock its token provider reads is shifted
    # while it makes the token (the first send on a fresh connection).
    stale = client(args, key)
    real_time = time.time
    connection.time = types.SimpleNamespace(time=lambda: real_time() - 7200)
    try:
        results.append(await send(stale, "expired-jwt", device_token=args.token, message=voip,
                                  push_type=PushType.VOIP))
    finally:
        connection.time = time
    for r in results:
        print(json.dumps(r))
    sys.stdout.flush()


asyncio.run(main())
