"""Sends VoIP pushes to callstorm's push gateway with published APNs clients, each left unchanged and pointed at
the gateway the way its users redirect it: aioapns by its host and port constants (JWT and client certificate),
kalyke-apns and pyapns-client through HTTPS_PROXY (their hosts are written into their code), httpx with HTTP/2,
and a bare h2 client that offers no ALPN, through a CONNECT tunnel it opens by hand.

Usage: apns_clients.py CLIENT --port P --ca CA.pem --bundle ID --token HEX [--key K.p8 --key-id ID --team T]
[--cert CLIENT.pem]. Prints one JSON line per push: {"client", "case", "status", "reason"}. Exit 3 when the
client's package is not installed (the test then asks whether the package index is reachable).
"""
import argparse
import asyncio
import json
import os
import socket
import ssl
import sys
import time
import uuid

VOIP = {"uuid": "", "handle": {"kind": "generic", "value": "alice", "displayName": "Alice"}}


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("client")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--bundle", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--key")
    p.add_argument("--key-id")
    p.add_argument("--team")
    p.add_argument("--cert")
    return p.parse_args()


def voip():
    return dict(VOIP, uuid=str(uuid.uuid4()))


def emit(client, case, status, reason=""):
    print(json.dumps({"client": client, "case": case, "status": str(status), "reason": reason or ""}))
    sys.stdout.flush()


def use_proxy(args):
    """What a user of an httpx-based client does: the proxy and the CA from the environment."""
    os.environ["HTTPS_PROXY"] = "http://127.0.0.1:%d" % args.port
    os.environ["SSL_CERT_FILE"] = args.ca
    os.environ.pop("NO_PROXY", None)
    os.environ.pop("no_proxy", None)


async def aioapns_push(args, certificate):
    import aioapns.connection as connection
    from aioapns import APNs, NotificationRequest, PushType
    connection.APNsProductionClientProtocol.APNS_SERVER = "127.0.0.1"
    connection.APNsTLSClientProtocol.APNS_PORT = args.port
    context = ssl.create_default_context(cafile=args.ca)
    if certificate:
        apns = APNs(client_cert=args.cert, topic=args.bundle + ".voip", ssl_context=context,
                    max_connection_attempts=1)
    else:
        with open(args.key) as f:
            key = f.read()
        apns = APNs(key=key, key_id=args.key_id, team_id=args.team, topic=args.bundle + ".voip",
                    ssl_context=context, max_connection_attempts=1)
    name = "aioapns-cert" if certificate else "aioapns-jwt"
    for case, topic in (("voip", None), ("other-topic", "com.other.app.voip")):
        if case == "other-topic" and not certificate:
            continue
        request = NotificationRequest(device_token=args.token, message=voip(), push_type=PushType.VOIP,
                                      notification_id=str(uuid.uuid4()), apns_topic=topic)
        result = await apns.send_notification(request)
        emit(name, case, result.status, result.description)


async def kalyke_push(args, certificate):
    from kalyke import VoIPClient, VoIPApnsConfig
    from kalyke.clients.voip_certificate import VoIPCertificateClient
    use_proxy(args)
    if certificate:
        client = VoIPCertificateClient(use_sandbox=False, auth_key_filepath=args.cert)
    else:
        client = VoIPClient(use_sandbox=False, team_id=args.team, auth_key_id=args.key_id,
                            auth_key_filepath=args.key)
    name = "kalyke-cert" if certificate else "kalyke"
    try:
        await client.send_message(device_token=args.token, payload=voip(),
                                  apns_config=VoIPApnsConfig(topic=args.bundle + ".voip"))
        emit(name, "voip", 200)
    except Exception as error:  # kalyke raises one exception class per APNs reason
        emit(name, "voip", "error", type(error).__name__ + ": " + str(error))


def pyapns_push(args):
    from pyapns_client import APNSClient, IOSNotification, IOSPayload
    use_proxy(args)
    client = APNSClient(mode=APNSClient.MODE_PROD, root_cert_path=args.ca, auth_key_path=args.key,
                        auth_key_id=args.key_id, team_id=args.team)
    notification = IOSNotification(payload=IOSPayload(custom=voip()), topic=args.bundle + ".voip",
                                   push_type="voip")
    try:
        client.push(notification=notification, device_token=args.token)
        emit("pyapns-client", "voip", 200)
    except Exception as error:
        emit("pyapns-client", "voip", "error", type(error).__name__ + ": " + str(error))
    finally:
        client.close()


def jwt_token(args, iat):
    import jwt
    with open(args.key) as f:
        key = f.read()
    return jwt.encode({"iss": args.team, "iat": iat}, key, algorithm="ES256", headers={"kid": args.key_id})


def httpx_push(args):
    import httpx
    context = ssl.create_default_context(cafile=args.ca)
    with httpx.Client(http2=True, verify=context, trust_env=False) as client:
        response = client.post(
            "https://127.0.0.1:%d/3/device/%s" % (args.port, args.token), json=voip(),
            headers={"authorization": "bearer " + jwt_token(args, int(time.time())), "apns-push-type": "voip",
                     "apns-topic": args.bundle + ".voip", "apns-priority": "10"})
        reason = response.json().get("reason", "") if response.content else ""
        emit("httpx", "voip-" + response.http_version, response.status_code, reason)


def no_alpn_push(args):
    """A bare HTTP/2 client: CONNECT by hand, TLS without ALPN, the h2 state machine for one request."""
    import h2.config
    import h2.connection
    import h2.events
    sock = socket.create_connection(("127.0.0.1", args.port), timeout=10)
    sock.sendall(b"CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: api.push.apple.com:443\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(1024)
        if not chunk:
            break
        answer += chunk
    if not answer.startswith(b"HTTP/1.1 200"):
        emit("no-alpn", "connect", "error", answer.decode(errors="replace"))
        return
    context = ssl.create_default_context(cafile=args.ca)  # no set_alpn_protocols: the client offers none
    tls = context.wrap_socket(sock, server_hostname="api.push.apple.com")
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    body = json.dumps(voip()).encode()
    conn.send_headers(1, [(":method", "POST"), (":scheme", "https"), (":authority", "api.push.apple.com"),
                          (":path", "/3/device/" + args.token),
                          ("authorization", "bearer " + jwt_token(args, time.time())),
                          ("apns-push-type", "voip"), ("apns-topic", args.bundle + ".voip"),
                          ("content-length", str(len(body)))])
    conn.send_data(1, body, end_stream=True)
    tls.sendall(conn.data_to_send())
    status, data, done = "", b"", False
    while not done:
        chunk = tls.recv(65536)
        if not chunk:
            break
        for event in conn.receive_data(chunk):
            if isinstance(event, h2.events.ResponseReceived):
                status = dict(event.headers).get(b":status", b"").decode()
            elif isinstance(event, h2.events.DataReceived):
                data += event.data
            elif isinstance(event, h2.events.StreamEnded):
                done = True
        tls.sendall(conn.data_to_send())
    reason = json.loads(data).get("reason", "") if data else ""
    emit("no-alpn", "voip", status, reason)
    tls.close()


def main():
    args = parse()
    modules = {"aioapns-jwt": "aioapns", "aioapns-cert": "aioapns", "kalyke": "kalyke", "kalyke-cert": "kalyke",
               "pyapns-client": "pyapns_client", "httpx": "httpx", "no-alpn": "h2"}
    try:
        __import__(modules[args.client])
        if args.client == "httpx":
            __import__("h2")
    except ImportError as error:
        print("missing python package: %s" % error, file=sys.stderr)
        sys.exit(3)
    if args.client.startswith("aioapns"):
        asyncio.run(aioapns_push(args, args.client == "aioapns-cert"))
    elif args.client.startswith("kalyke"):
        asyncio.run(kalyke_push(args, args.client == "kalyke-cert"))
    elif args.client == "pyapns-client":
        pyapns_push(args)
    elif args.client == "httpx":
        httpx_push(args)
    else:
        no_alpn_push(args)


main()
