#!/usr/bin/env python3
"""Writes the hand-made seed inputs of Fuzz/corpus/<target>/seed-*. libFuzzer adds what it finds beside them."""
import json, os, struct

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
token = "ab" * 32

def write(target, name, data):
    os.makedirs(os.path.join(root, target), exist_ok=True)
    with open(os.path.join(root, target, "seed-" + name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())

# HTTP/1.1 requests.
write("http1", "get", "GET /v1/conversations/c-1 HTTP/1.1\r\nHost: x\r\n\r\n")
write("http1", "post", "POST /v1/devices HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 11\r\n\r\n{\"id\":\"d1\"}")
write("http1", "chunked", "POST /3/device/%s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n0\r\nTrailer: t\r\n\r\n" % token)
write("http1", "expect", "POST /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\nabc")
write("http1", "pipelined", "GET /a HTTP/1.0\r\n\r\nGET /b HTTP/1.1\r\nConnection: close\r\n\r\n")
# CONNECT heads (the http1 target also runs the CONNECT reader): allowed, forbidden, malformed line and headers.
write("http1", "connect", "CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: api.push.apple.com:443\r\n"
      "Proxy-Connection: Keep-Alive\r\n\r\n\x16\x03\x01")
write("http1", "connect-forbidden", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
write("http1", "connect-v6", "CONNECT [::1]:2197 HTTP/1.1\nHost: [::1]:2197\n\n")
write("http1", "connect-no-port", "CONNECT api.sandbox.push.apple.com HTTP/1.1\r\n\r\n")
write("http1", "connect-bad-header", "CONNECT api.push.apple.com:2197 HTTP/1.1\r\nHost a\r\n folded\r\n\r\n")

# HTTP/2 frames after the preface (the fuzz target adds it when the first byte is even; byte 0 is dropped).
def frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload

def literal(name, value):  # HPACK literal header field without indexing, new name, no Huffman
    n, v = name.encode(), value.encode()
    assert len(n) < 127 and len(v) < 127
    return b"\x00" + bytes([len(n)]) + n + bytes([len(v)]) + v

payload = json.dumps({"aps": {}, "uuid": "c-1", "handle": {"kind": "phoneNumber", "value": "+1555", "displayName": "A"},
                      "capabilities": ["merging"], "sentAt": 1}).encode()
block = b"".join([literal(":method", "POST"), literal(":scheme", "http"), literal(":authority", "localhost"),
                  literal(":path", "/3/device/" + token), literal("apns-push-type", "voip"),
                  literal("apns-topic", "com.example.callstorm.voip"), literal("apns-priority", "10"),
                  literal("content-length", str(len(payload)))])
settings = frame(4, 0, 0, b"")
headers = frame(1, 4, 1, block)
data = frame(0, 1, 1, payload)
write("http2", "push", b"\x00" + settings + headers + data)
write("http2", "two-streams", b"\x00" + settings + headers + data + frame(1, 5, 3, block[:]) + frame(3, 0, 1, b"\x00\x00\x00\x08"))
write("http2", "ping-window-goaway", b"\x00" + settings + frame(6, 0, 0, b"12345678") +
      frame(8, 0, 0, b"\x00\x01\x00\x00") + frame(7, 0, 0, b"\x00\x00\x00\x00\x00\x00\x00\x00"))
write("http2", "http1-push", b"\x01" + ("POST /3/device/%s HTTP/1.1\r\nHost: x\r\napns-push-type: voip\r\n"
      "apns-topic: com.example.callstorm.voip\r\nContent-Length: %d\r\n\r\n" % (token, len(payload))).encode() + payload)
write("http2", "fcm", b"\x01" + ("POST /v1/projects/p/messages:send HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\n"
      "Content-Length: 60\r\n\r\n").encode() + b'{"message":{"token":"t","data":{"uuid":"c-1"}}}' + b" " * 12)

# CONNECT on the gateway's cleartext port ('C' is odd: sent as is): a tunnel whose TLS never comes, a refusal, and
# a head with a bad header line.
write("http2", "connect-tunnel", "CONNECT api.push.apple.com:443 HTTP/1.1\r\nHost: api.push.apple.com:443\r\n\r\n"
      "\x16\x03\x01\x00\x05hello")
write("http2", "connect-forbidden", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com\r\n\r\n")
write("http2", "connect-bad-header", "CONNECT api.push.apple.com:2197 HTTP/1.1\r\nHost\r\n\r\nGET / HTTP/1.1\r\n\r\n")

# Target responses and push payloads in the reference protocol.
conversation = {"id": "c-1", "version": 3, "state": "joined", "ended": False,
                "members": [{"device": "d1", "state": "joined", "handle": {"kind": "phoneNumber", "value": "+1",
                                                                           "displayName": "A"}}]}
write("json", "conversation", json.dumps(conversation))
write("json", "split", json.dumps({"split": conversation}))
write("json", "push", json.dumps({"uuid": "c-1", "event": "merged", "into": "c-2", "version": 4,
                                  "conversation": conversation}))
write("json", "capture", json.dumps({"call": {"callId": "x-9"}, "members": [{"id": 1}, {"id": "m2"}],
                                     "a": {"b": [{"c": [1, 2.5, "three"]}]}}))
write("json", "deep", "[" * 40 + "]" * 40)

# Push requests: header values line (push-type|topic|priority|expiration|collapse-id|apns-id), then the body.
write("push", "voip", b"voip|com.example.callstorm.voip|10|0\n" + payload)
write("push", "background", b"background|com.example.callstorm|5|1800000000|c1\n" +
      json.dumps({"aps": {"content-available": 1}, "uuid": "c-1", "event": "ended"}).encode())
write("push", "fcm", b"|\n" + json.dumps({"message": {"token": "t", "data": {"uuid": "c-1", "event": "incoming"},
                                                      "android": {"priority": "HIGH", "ttl": "30s"}}}).encode())
write("push", "bad-id", b"voip|com.example.callstorm.voip|10|0||NOT-A-UUID\n{}")

# WebSocket frames: byte 0 is the role (bit 0: 0 client receives server frames, 1 server receives client frames)
# and the chunk size (the other bits); frames follow.
def ws_frame(opcode, payload, fin=True, mask=None):
    head = bytes([(0x80 if fin else 0) | opcode])
    n = len(payload)
    bit = 0x80 if mask else 0
    if n < 126: head += bytes([bit | n])
    elif n < 65536: head += bytes([bit | 126]) + struct.pack(">H", n)
    else: head += bytes([bit | 127]) + struct.pack(">Q", n)
    if mask:
        head += mask
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + payload

write("websocket", "text", b"\x0e" + ws_frame(1, "héllo".encode()))
write("websocket", "fragments-ping", b"\x06" + ws_frame(1, b"Hel", fin=False) + ws_frame(9, b"p") +
      ws_frame(0, b"lo"))
write("websocket", "masked-client", b"\x03" + ws_frame(2, bytes(range(200)), mask=b"\x01\x02\x03\x04") +
      ws_frame(8, struct.pack(">H", 1000) + b"bye", mask=b"\x09\x08\x07\x06"))
write("websocket", "close-ping-pong", b"\xfe" + ws_frame(9, b"") + ws_frame(10, b"x" * 125) +
      ws_frame(8, struct.pack(">H", 1001)))
write("websocket", "bad-utf8", b"\x02" + ws_frame(1, b"\xc3\x28"))
write("websocket", "oversize-64bit", b"\x00" + bytes([0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0]))

# SIP messages. Byte 0: even = one UDP datagram, odd = a TCP stream read in chunks of (byte 0 >> 1) bytes.
sip_invite = ("INVITE sip:bob@127.0.0.1:5070 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK1, "
              "SIP/2.0/UDP 127.0.0.1:5080;branch=z9hG4bKa;rport\r\nRecord-Route: <sip:127.0.0.1;lr>\r\n"
              "Max-Forwards: 69\r\nf: \"Al\" <sip:a@127.0.0.1>;tag=1\r\nt: <sip:b@127.0.0.1>\r\ni: c1\r\n"
              "CSeq: 1 INVITE\r\nm: <sip:a@127.0.0.1:5080>\r\nc: application/sdp\r\nl: 63\r\n\r\n"
              "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\nc=IN IP4 127.0.0.1\r\nm=audio 4000 RTP/AVP 0\r\na=sendonly\r\n")
write("sip", "invite-udp", "\x00" + sip_invite)
write("sip", "invite-tcp-chunks", "\x0f" + "\r\n\r\n" + sip_invite + sip_invite)
write("sip", "register-pn", "\x00REGISTER sip:127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP h:5070;branch=z9hG4bK2\r\n"
      "From: <sip:d@h>;tag=x\r\nTo: <sip:d@h>\r\nCall-ID: r1\r\nCSeq: 2 REGISTER\r\n"
      "Contact: <sip:d@h:5070;pn-provider=apns;pn-prid=%s;pn-param=T.b.voip>;expires=600\r\n"
      "Authorization: Digest username=\"d\", realm=\"r\", nonce=\"n\", uri=\"sip:h\", response=\"x\"\r\n"
      "Content-Length: 0\r\n\r\n" % token)
write("sip", "challenge", "\x00SIP/2.0 401 Unauthorized\r\nVia: SIP/2.0/UDP h;branch=z9hG4bK2\r\nFrom: <sip:d@h>;tag=x\r\n"
      "To: <sip:d@h>;tag=s\r\nCall-ID: r1\r\nCSeq: 2 REGISTER\r\n"
      "WWW-Authenticate: Digest realm=\"callstorm\", nonce=\"abc\", qop=\"auth,auth-int\", opaque=\"o\"\r\n"
      "Content-Length: 0\r\n\r\n")
write("sip", "bad-lines", "\x00INVITE sip:a@b SIP/2.0\r\nno colon\r\n folded\r\nContent-Length: x\r\n\r\n")
write("sip", "tcp-no-length", "\x03OPTIONS sip:a@b SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK3\r\n\r\n")
write("sip", "truncated-body", "\x00SIP/2.0 200 OK\r\nContent-Length: 99\r\n\r\nshort")

# RTP (RFC 3550 §5.1). Byte 0 odd: one packet, round-tripped; even: datagrams of (byte 0 >> 1) + 1 bytes through
# one media stream's books.
def rtp(seq, ts=0, ssrc=0x1234, pt=0, marker=False, payload=b"\xff" * 160, csrcs=(), ext=None, pad=0):
    first = 0x80 | (0x20 if pad else 0) | (0x10 if ext is not None else 0) | len(csrcs)
    out = struct.pack(">BBHII", first, (0x80 if marker else 0) | pt, seq & 0xFFFF, ts & 0xFFFFFFFF, ssrc)
    out += b"".join(struct.pack(">I", c) for c in csrcs)
    if ext is not None:
        out += struct.pack(">HH", 0xBEDE, len(ext) // 4) + ext
    out += payload
    if pad:
        out += b"\x00" * (pad - 1) + bytes([pad])
    return out

write("rtp", "pcmu", b"\x01" + rtp(1, 160, marker=True))
write("rtp", "csrc-ext-pad", b"\x01" + rtp(7, 9, pt=8, csrcs=(1, 2), ext=b"\x10\x20\x30\x40", pad=3))
write("rtp", "bad-padding", b"\x01" + rtp(1, pad=0)[:0] + bytes([0xA0]) + rtp(1)[1:12] + b"\x01\x09")
write("rtp", "version-1", b"\x01\x40" + rtp(1)[1:])
# A stream of 12-byte-header + 4-byte payload packets (chunk 16: byte 0 = 30): gaps, a wrap, a duplicate, reorder.
stream = b"".join(rtp(s, s * 160, payload=b"\xd5" * 4) for s in (65533, 65534, 0, 0, 2, 1, 5, 30000, 30001))
write("rtp", "stream-wrap-dup-reorder", bytes([30]) + stream)
write("rtp", "stream-garbage", bytes([6]) + b"\x80\x00\x00" + b"\x00" * 20 + b"\x90\x00\x00\x01" + b"\x00" * 10)

# RTCP (RFC 3550 §6.4): compound datagrams.
def block(ssrc, fraction=0, lost=0, ext=0, jitter=0, lsr=0, dlsr=0):
    return struct.pack(">IIIIII", ssrc, (fraction << 24) | (lost & 0xFFFFFF), ext, jitter, lsr, dlsr)

def sr(ssrc, blocks=()):
    body = struct.pack(">IQIII", ssrc, 0xE8F0123480000000, 160000, 1000, 160000) + b"".join(blocks)
    return struct.pack(">BBH", 0x80 | len(blocks), 200, (len(body) + 4) // 4 - 1) + body

def rr(ssrc, blocks=()):
    body = struct.pack(">I", ssrc) + b"".join(blocks)
    return struct.pack(">BBH", 0x80 | len(blocks), 201, (len(body) + 4) // 4 - 1) + body

sdes = struct.pack(">BBHI", 0x81, 202, 2, 0x1234) + b"\x01\x02ab"
write("rtcp", "sr", sr(1, [block(2, 64, 3, 65541, 37)]))
write("rtcp", "rr-negative-lost", rr(3, [block(4, 0, -3 & 0xFFFFFF, 10, 0), block(5)]))
write("rtcp", "compound-sr-rr-sdes", sr(1) + rr(2, [block(9)]) + sdes)
write("rtcp", "padded-last", rr(3)[:1].replace(b"\x80", b"\xa0") + rr(3)[1:2] + b"\x00\x02" + rr(3)[4:] + b"\x00\x00\x00\x04")
write("rtcp", "sdes-first", sdes + rr(3))
write("rtcp", "rc-too-big", bytes([0x85]) + rr(3, [block(1)])[1:])

# HTTP/1.1 responses (HTTPWire's parser); byte 0: bit 0 HEAD, bits 1-7 the piece size (0: whole).
write("http1-response", "length", "\x00HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: y\r\n\r\nhello")
write("http1-response", "chunked", "\x06HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;e=1\r\nhello\r\n0\r\nT: 1\r\n\r\n")
write("http1-response", "interim", "\x02HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 204 No Content\nConnection: keep-alive\n\n")
write("http1-response", "until-close", "\x01HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end")
write("http1-response", "malformed", "\x0aHTTP/1.1 200 OK\r\nContent Length: 5\r\n folded\r\n\r\n")
write("http1-response", "conflict", "\x00HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabc")
write("http1-response", "gzip-chunked", "\x00HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
write("http1-response", "te-and-length", "\x04HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabcdef")
write("http1-response", "early-hints-upgrade", "\x02HTTP/1.1 103 Early\r\nLink: x\r\n\r\nHTTP/1.1 101 Switching\r\n\r\nrest")

# history.jsonl (the checker's reader): a hold call's lines as the writer writes them, then escapes, non-ASCII
# texts, missing fields, a line cut short and shapes the fixed-shape reader leaves to the general scanner.
cid = "1l5e9jnjj46@127.0.0.1"
def sip_line(t, device, sent, message):
    return ('{"t":%d,"type":"sip","device":"%s","conversation":"%s","sent":%s,"message":"%s"}'
            % (t, device, cid, "true" if sent else "false", message))
write("history", "hold-call", "\n".join([
    '{"t":3061734083,"type":"invoke","op":1,"device":"dev-0","kind":"start","call":0,"step":"dial"}',
    sip_line(3306553151, "dev-0", True, "INVITE"), sip_line(3385323295, "dev-0", False, "100 INVITE"),
    sip_line(3659127927, "dev-1", False, "INVITE"), sip_line(3735149704, "dev-1", True, "180 INVITE"),
    '{"t":3748981640,"type":"dialog","device":"dev-1","conversation":"%s","state":"early","call":0}' % cid,
    '{"t":3876780120,"type":"dialog","device":"dev-0","conversation":"%s","state":"confirmed","call":0}' % cid,
    '{"t":3407075951,"type":"complete","op":1,"outcome":"ok","conversation":"%s"}' % cid,
    '{"t":4407075951,"type":"invoke","op":2,"device":"dev-0","kind":"pause","conversation":"%s","call":0,'
    '"step":"hold"}' % cid,
    '{"t":5407075951,"type":"dialog","device":"dev-0","conversation":"%s","state":"terminated","reason":"bye",'
    '"call":0}' % cid]) + "\n")
write("history", "escapes", '{"t":1,"type":"sip","device":"d\\"q","conversation":"c\\\\x","sent":true,'
      '"message":"BYE"}\n{"t":2,"type":"dialog","device":"dev-1","conversation":"c\\u00e9","state":"early",'
      '"call":0}\n')
write("history", "non-ascii", '{"t":3,"type":"sip","device":"d\u00e9vice","conversation":"caf\u00e9@host",'
      '"sent":false,"message":"200 INVITE"}\n{"t":4,"type":"invoke","op":7,"device":"\u00fc","user":"u-1",'
      '"kind":"start","call":3,"step":"s/\u00df"}\n{"t":5,"type":"complete","op":7,"outcome":"ok",'
      '"reason":"\u260e","conversation":"caf\u00e9@host"}\n' + "\n".join([""]))
write("history", "missing-fields", '{"t":1,"type":"sip","device":"d","sent":true,"message":"BYE"}\n'
      '{"t":2,"type":"dialog","device":"d","conversation":"c"}\n{"t":3,"type":"invoke","op":1,"device":"d",'
      '"kind":"join"}\n{"t":4,"type":"complete","op":1}\n')
write("history", "cut-short", '{"t":1,"type":"sip","device":"d","conversation":"c","sent":true,"message":"BY')
write("history", "other-shapes", '{"t":1,"type":"sip","conversation":"c","device":"d","sent":true,'
      '"message":"BYE"}\n{"t":1234567890123456789,"type":"dialog","device":"d","conversation":"c","state":"held"}'
      '\n\n{ "t":2,"type":"stop"}\n{"t":9,"type":"sip","device":"d","conversation":"c","sent":true,"message":"BYE"} \n'
      '{"t":10,"type":"sip","device":"d","conversation":"c","sent":true,"message":"BYE"}')
write("history", "http-call", "\n".join([
    '{"t":1459582717,"type":"complete","op":1,"outcome":"ok","conversation":"baab250e-9454-472a-b5d2-6b986b3f70fc","view":{"id":"baab250e-9454-472a-b5d2-6b986b3f70fc","version":1,"ended":false,"members":[{"device":"dev-0","state":"joined"},{"device":"dev-1","state":"ringing"}]}}',
    '{"t":1848512512,"type":"push","device":"dev-1","event":"voip","conversation":"baab250e-9454-472a-b5d2-6b986b3f70fc","view":{"id":"baab250e-9454-472a-b5d2-6b986b3f70fc","version":1,"ended":false,"members":[{"device":"dev-0","state":"joined"},{"device":"dev-1","state":"ringing"}]}}',
    '{"t":1870294629,"type":"invoke","op":3,"device":"dev-1","kind":"join","conversation":"baab250e-9454-472a-b5d2-6b986b3f70fc","call":0,"step":"answer"}',
    '{"t":1946664715,"type":"push","device":"dev-0","event":"joined","conversation":"baab250e-9454-472a-b5d2-6b986b3f70fc","view":{"id":"baab250e-9454-472a-b5d2-6b986b3f70fc","version":2,"ended":false,"members":[{"device":"dev-0","state":"joined"},{"device":"dev-1","state":"joined"}]}}',
    '{"t":1958071493,"type":"complete","op":3,"outcome":"ok","conversation":"baab250e-9454-472a-b5d2-6b986b3f70fc","view":{"id":"baab250e-9454-472a-b5d2-6b986b3f70fc","version":2,"ended":false,"members":[{"device":"dev-0","state":"joined"},{"device":"dev-1","state":"joined"}]}}',
    '{"t":1958071493,"type":"invoke","op":5,"device":"dev-0","kind":"end","conversation":"baab250e-9454-472a-b5d2-6b986b3f70fc","call":0,"step":"hangup"}',
    '{"t":2009631033,"type":"push","device":"dev-1","event":"ended","conversation":"baab250e-9454-472a-b5d2-6b986b3f70fc","reason":"remoteEnded","view":{"id":"baab250e-9454-472a-b5d2-6b986b3f70fc","version":3,"ended":true,"members":[{"device":"dev-0","state":"left"},{"device":"dev-1","state":"left"}]}}',
    '{"t":2018406389,"type":"complete","op":5,"outcome":"ok","conversation":"baab250e-9454-472a-b5d2-6b986b3f70fc","view":{"id":"baab250e-9454-472a-b5d2-6b986b3f70fc","version":3,"ended":true,"members":[{"device":"dev-0","state":"left"},{"device":"dev-1","state":"left"}]}}',
    '{"t":2082351025,"type":"final","device":"dev-0","conversation":"baab250e-9454-472a-b5d2-6b986b3f70fc","server":{"id":"baab250e-9454-472a-b5d2-6b986b3f70fc","version":3,"ended":true,"members":[{"device":"dev-0","state":"left"},{"device":"dev-1","state":"left"}]},"local":{"state":"left","members":[],"active":[]}}',
    '{"t":2082351025,"type":"final","device":"dev-1","conversation":"baab250e-9454-472a-b5d2-6b986b3f70fc","server":{"id":"baab250e-9454-472a-b5d2-6b986b3f70fc","version":3,"ended":true,"members":[{"device":"dev-0","state":"left"},{"device":"dev-1","state":"left"}]},"local":{"state":"left","members":[],"active":[]}}',
]) + "\n")
