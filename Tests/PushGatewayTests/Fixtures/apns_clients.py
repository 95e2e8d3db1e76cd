"""Sends pushes to callstorm's push gateway with published APNs clients, each left unchanged and pointed at the
gateway the way its users redirect it: aioapns by its host and port constants (JWT and client certificate),
kalyke-apns and pyapns-client through HTTPS_PROXY (their hosts are written into their code), httpx with HTTP/2,
and a bare h2 client that offers no ALPN, through a CONNECT tunnel it opens by hand.

Usage: apns_clients.py CLIENT --port P --ca CA.pem --bundle ID --token HEX [--key K.p8 --key-id ID --team T]
[--cert CLIENT.pem] [--serve]. Without --serve it sends one VoIP push (and, for aioapns-cert, one to a topic the
certificate does not allow); with --serve it sends one push per JSON line on stdin ({"token", "voip", "payload"}),
as a call server's push path would. Prints one JSON line per push: {"client", "case", "status", "reason",
"version"}. Exit 3 when the client's package is not installed (the test then asks whether PyPI is reachable).
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

MODULES = {"aioapns-jwt": "aioapns", "aioapns-cert": "aioapns", "kalyke": "kalyke", "kalyke-cert": "kalyke",
           "pyapns-client": "pyapns_client", "httpx": "httpx", "no-alpn": "h2"}


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("client", choices=sorted(MODULES))
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--bundle", required=True)
    p.add_argument("--token", default="")
    p.add_argument("--key")
    p.add_argument("--key-id")
    p.add_argument("--team")
    p.add_argument("--cert")
    p.add_argument("--serve", action="store_true")
    return p.parse_args()


def voip_payload():
    return {"uuid": str(uuid.uuid4()), "handle": {"kind": "generic", "value": "alice", "displayName": "Alice"}}


def use_proxy(args):
    """What a user of an httpx-based client does: the proxy and the CA from the environment."""
    os.environ["HTTPS_PROXY"] = "http://127.0.0.1:%d" % args.port
    os.environ["SSL_CERT_FILE"] = args.ca
    os.environ.pop("NO_PROXY", None)
    os.environ.pop("no_proxy", None)


def jwt_token(args, iat):
    import jwt
    with open(args.key) as f:
        key = f.read()
    return jwt.encode({"iss": args.team, "iat": iat}, key, algorithm="ES256", headers={"kid": args.key_id})


class Client:
    """One library, made once; `send` returns (status, reason, HTTP version)."""

    def __init__(self, args):
        self.args = args
        self.loop = asyncio.new_event_loop()

    def topic(self, voip, topic):
        return topic or (self.args.bundle + ".voip" if voip else self.args.bundle)

    def close(self):
        self.loop.close()


class Aioapns(Client):
    def __init__(self, args, certificate):
        super().__init__(args)
        import aioapns.connection as connection
        connection.APNsProductionClientProtocol.APNS_SERVER = "127.0.0.1"
        connection.APNsTLSClientProtocol.APNS_PORT = args.port
        self.apns = self.loop.run_until_complete(self.make(certificate))

    async def make(self, certificate):
        from aioapns import APNs
        context = ssl.create_default_context(cafile=self.args.ca)
        if certificate:
            return APNs(client_cert=self.args.cert, topic=self.args.bundle + ".voip", ssl_context=context,
                        max_connection_attempts=1)
        with open(self.args.key) as f:
            key = f.read()
        return APNs(key=key, key_id=self.args.key_id, team_id=self.args.team, topic=self.args.bundle + ".voip",
                    ssl_context=context, max_connection_attempts=1)

    def send(self, token, payload, voip, topic=None):
        from aioapns import NotificationRequest, PushType
        request = NotificationRequest(device_token=token, message=payload, notification_id=str(uuid.uuid4()),
                                      push_type=PushType.VOIP if voip else PushType.BACKGROUND,
                                      apns_topic=self.topic(voip, topic), priority=10 if voip else 5)
        result = self.loop.run_until_complete(self.apns.send_notification(request))
        return result.status, result.description, "HTTP/2"


class Kalyke(Client):
    def __init__(self, args, certificate):
        super().__init__(args)
        use_proxy(args)
        self.certificate = certificate

    def send(self, token, payload, voip, topic=None):
        from kalyke import ApnsClient, ApnsConfig, ApnsPushType, VoIPApnsConfig, VoIPClient
        from kalyke.clients.voip_certificate import VoIPCertificateClient
        a = self.args
        if self.certificate:
            client = VoIPCertificateClient(use_sandbox=False, auth_key_filepath=a.cert)
        elif voip:
            client = VoIPClient(use_sandbox=False, team_id=a.team, auth_key_id=a.key_id, auth_key_filepath=a.key)
        else:
            client = ApnsClient(use_sandbox=False, team_id=a.team, auth_key_id=a.key_id, auth_key_filepath=a.key)
        config = VoIPApnsConfig(topic=self.topic(voip, topic)) if voip else \
            ApnsConfig(topic=self.topic(voip, topic), push_type=ApnsPushType.BACKGROUND)
        try:
            self.loop.run_until_complete(client.send_message(device_token=token, payload=payload,
                                                             apns_config=config))
            return 200, "", "HTTP/2"
        except Exception as error:  # kalyke raises one exception class per APNs reason
            return "error", type(error).__name__ + ": " + str(error), ""


class Pyapns(Client):
    def __init__(self, args):
        super().__init__(args)
        from pyapns_client import APNSClient
        use_proxy(args)
        self.client = APNSClient(mode=APNSClient.MODE_PROD, root_cert_path=args.ca, auth_key_path=args.key,
                                 auth_key_id=args.key_id, team_id=args.team)

    def send(self, token, payload, voip, topic=None):
        from pyapns_client import IOSNotification, IOSPayload
        notification = IOSNotification(payload=IOSPayload(custom=payload, content_available=not voip),
                                       topic=self.topic(voip, topic), push_type="voip" if voip else "background")
        try:
            self.client.push(notification=notification, device_token=token)
            return 200, "", "HTTP/2"
        except Exception as error:
            return "error", type(error).__name__ + ": " + str(error), ""

    def close(self):
        self.client.close()
        super().close()


class Httpx(Client):
    def __init__(self, args):
        super().__init__(args)
        import httpx
        self.client = httpx.Client(http2=True, verify=ssl.create_default_context(cafile=args.ca), trust_env=False)
        self.token = jwt_token(args, int(time.time()))

    def send(self, token, payload, voip, topic=None):
        response = self.client.post(
            "https://127.0.0.1:%d/3/device/%s" % (self.args.port, token), json=payload,
            headers={"authorization": "bearer " + self.token, "apns-push-type": "voip" if voip else "background",
                     "apns-topic": self.topic(voip, topic), "apns-priority": "10" if voip else "5"})
        reason = response.json().get("reason", "") if response.content else ""
        return response.status_code, reason, response.http_version

    def close(self):
        self.client.close()
        super().close()


class NoAlpn(Client):
    """A bare HTTP/2 client: CONNECT by hand, TLS without ALPN, one h2 connection for every push."""

    def __init__(self, args):
        super().__init__(args)
        self.tls = None

    def connect(self):
        """Opened at the first push, so a serving client can start before the gateway listens."""
        import h2.config
        import h2.connection
        args = self.args
        sock = socket.create_connection(("127.0.0.1", args.port), timeout=10)
        sock.sendall(b"CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: api.push.apple.com:443\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(1024)
            if not chunk:
                break
            answer += chunk
        if not answer.startswith(b"HTTP/1.1 200"):
            raise RuntimeError("CONNECT refused: " + answer.decode(errors="replace"))
        context = ssl.create_default_context(cafile=args.ca)  # no set_alpn_protocols: the client offers none
        self.tls = context.wrap_socket(sock, server_hostname="api.push.apple.com")
        self.conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
        self.conn.initiate_connection()
        self.tls.sendall(self.conn.data_to_send())
        self.token = jwt_token(self.args, time.time())

    def send(self, token, payload, voip, topic=None):
        import h2.events
        if self.tls is None:
            self.connect()
        stream = self.conn.get_next_available_stream_id()
        body = json.dumps(payload).encode()
        self.conn.send_headers(stream, [
            (":method", "POST"), (":scheme", "https"), (":authority", "api.push.apple.com"),
            (":path", "/3/device/" + token), ("authorization", "bearer " + self.token),
            ("apns-push-type", "voip" if voip else "background"), ("apns-topic", self.topic(voip, topic)),
            ("content-length", str(len(body)))])
        self.conn.send_data(stream, body, end_stream=True)
        self.tls.sendall(self.conn.data_to_send())
        status, data, done = "", b"", False
        while not done:
            chunk = self.tls.recv(65536)
            if not chunk:
                break
            for event in self.conn.receive_data(chunk):
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                    status = dict(event.headers).get(b":status", b"").decode()
                elif isinstance(event, h2.events.DataReceived) and event.stream_id == stream:
                    data += event.data
                    self.conn.acknowledge_received_data(event.flow_controlled_length, stream)
                elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                    done = True
            self.tls.sendall(self.conn.data_to_send())
        return status, json.loads(data).get("reason", "") if data else "", "HTTP/2"

    def close(self):
        if self.tls is not None:
            self.tls.close()
        super().close()


def make(args):
    name = args.client
    if name.startswith("aioapns"):
        return Aioapns(args, name == "aioapns-cert")
    if name.startswith("kalyke"):
        return Kalyke(args, name == "kalyke-cert")
    if name == "pyapns-client":
        return Pyapns(args)
    return Httpx(args) if name == "httpx" else NoAlpn(args)


def emit(args, case, result):
    status, reason, version = result
    print(json.dumps({"client": args.client, "case": case, "status": str(status), "reason": reason or "",
                      "version": version or ""}))
    sys.stdout.flush()


def main():
    args = parse()
    try:
        __import__(MODULES[args.client])
        if args.client == "httpx":
            __import__("h2")
    except ImportError as error:
        print("missing python package: %s" % error, file=sys.stderr)
        sys.exit(3)
    client = make(args)
    try:
        if args.serve:
            for line in sys.stdin:
                if line.strip():
                    push = json.loads(line)
                    emit(args, "serve", client.send(push["token"], push["payload"], push["voip"]))
        else:
            emit(args, "voip", client.send(args.token, voip_payload(), True))
            if args.client == "aioapns-cert":
                emit(args, "other-topic", client.send(args.token, voip_payload(), True, "com.other.app.voip"))
    finally:
        client.close()


main()
