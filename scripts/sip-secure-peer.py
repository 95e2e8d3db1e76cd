#!/usr/bin/env python3
"""A SIP peer over TLS and WebSocket built from Python's ssl module and PyPI's websockets (code we did not write),
for Kamailio's TLS and WebSocket listeners (Tests/KamailioTests/KamailioListenersTests).

Usage: sip-secure-peer.py CA SIP_PORT TLS_PORT WS_PORT WSS_PORT PASSWORD
Prints one JSON object: the status line each step got back.
  tls_options   OPTIONS over TLS, the server's certificate verified against CA
  wss_options   OPTIONS over wss (subprotocol sip), verified the same way
  ws_register   REGISTER over ws with digest (a Contact the proxy cannot reach: `….invalid;transport=ws`)
  ws_invite     the INVITE a UDP caller sent to that user, as it arrived over the WebSocket
  udp_final     the caller's final answer once the WebSocket side refused it with 486
"""

import asyncio
import hashlib
import json
import re
import socket
import ssl
import sys

import websockets


def md5(text):
    return hashlib.md5(text.encode()).hexdigest()


def request(method, uri, via, call_id, cseq, extra="", body=""):
    return (f"{method} {uri} SIP/2.0\r\nVia: {via}\r\nMax-Forwards: 70\r\nFrom: <sip:peer@127.0.0.1>;tag=f{cseq}\r\n"
            f"To: <{uri}>\r\nCall-ID: {call_id}\r\nCSeq: {cseq} {method}\r\n{extra}Content-Length: {len(body)}\r\n\r\n"
            + body)


def first_line(text):
    return text.split("\r\n", 1)[0]


def tls_options(ca, port):
    context = ssl.create_default_context(cafile=ca)
    with context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5),
                             server_hostname="127.0.0.1") as s:
        local = s.getsockname()[1]
        s.sendall(request("OPTIONS", f"sip:127.0.0.1:{port};transport=tls",
                          f"SIP/2.0/TLS 127.0.0.1:{local};branch=z9hG4bKtls1;rport", "tls-options", 1).encode())
        return first_line(s.recv(4096).decode())


async def wss_options(ca, port):
    context = ssl.create_default_context(cafile=ca)
    async with websockets.connect(f"wss://127.0.0.1:{port}/", subprotocols=["sip"], ssl=context) as ws:
        await ws.send(request("OPTIONS", f"sip:127.0.0.1:{port};transport=ws",
                              "SIP/2.0/WSS abc.invalid;branch=z9hG4bKwss1", "wss-options", 1))
        return first_line(await asyncio.wait_for(ws.recv(), 5))


async def ws_register_and_take_invite(sip_port, ws_port, password):
    aor, via = "sip:wsuser@127.0.0.1", "SIP/2.0/WS abc.invalid;branch=z9hG4bKreg{}"
    contact = "Contact: <sip:wsuser@abc.invalid;transport=ws>\r\nExpires: 300\r\n"
    out = {}
    async with websockets.connect(f"ws://127.0.0.1:{ws_port}/", subprotocols=["sip"]) as ws:
        await ws.send(request("REGISTER", aor, via.format(1), "ws-register", 1, contact))
        challenge = await asyncio.wait_for(ws.recv(), 5)
        realm = re.search(r'realm="([^"]+)"', challenge).group(1)
        nonce = re.search(r'nonce="([^"]+)"', challenge).group(1)
        response = md5(f"{md5(f'wsuser:{realm}:{password}')}:{nonce}:{md5(f'REGISTER:{aor}')}")
        auth = (f'Authorization: Digest username="wsuser", realm="{realm}", nonce="{nonce}", uri="{aor}", '
                f'response="{response}", algorithm=MD5\r\n')
        await ws.send(request("REGISTER", aor, via.format(2), "ws-register", 2, contact + auth))
        out["ws_register"] = first_line(await asyncio.wait_for(ws.recv(), 5))
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        udp.bind(("127.0.0.1", 0))
        udp.settimeout(5)
        local = udp.getsockname()[1]
        sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 9 RTP/AVP 0\r\n"
        invite = request("INVITE", f"sip:wsuser@127.0.0.1:{sip_port}",
                         f"SIP/2.0/UDP 127.0.0.1:{local};branch=z9hG4bKinv1;rport", "udp-invite", 1,
                         f"Contact: <sip:caller@127.0.0.1:{local}>\r\nContent-Type: application/sdp\r\n", sdp)
        udp.sendto(invite.encode(), ("127.0.0.1", sip_port))
        arrived = await asyncio.wait_for(ws.recv(), 5)
        out["ws_invite"] = first_line(arrived)
        head = arrived.split("\r\n\r\n", 1)[0].split("\r\n")
        keep = [h for h in head[1:] if h.split(":", 1)[0].lower() in ("via", "from", "to", "call-id", "cseq")]
        await ws.send("SIP/2.0 486 Busy Here\r\n" + "\r\n".join(keep) + "\r\nContent-Length: 0\r\n\r\n")
        final = ""
        while not final or first_line(final).split(" ")[1].startswith("1"):
            final = udp.recv(4096).decode()
        out["udp_final"] = first_line(final)
        udp.close()
    return out


def main(argv):
    if len(argv) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    ca, sip_port, tls_port, ws_port, wss_port, password = argv[1], *map(int, argv[2:6]), argv[6]
    result = {"tls_options": tls_options(ca, tls_port), "wss_options": asyncio.run(wss_options(ca, wss_port))}
    result.update(asyncio.run(ws_register_and_take_invite(sip_port, ws_port, password)))
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
