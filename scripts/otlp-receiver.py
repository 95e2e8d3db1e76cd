#!/usr/bin/env python3
"""A test OTLP/HTTP receiver: decodes what callstorm posts to /v1/metrics and /v1/traces with PyPI's
opentelemetry-proto (scripts/otlp_decode.py) and appends one JSON line per request to OUT. Not a collector: it
keeps nothing else and answers every request with an empty ExportServiceResponse (200).

Usage: otlp-receiver.py OUT PORTFILE    listens on 127.0.0.1, a free port written to PORTFILE once listening
       OUT "-" decodes and keeps nothing: a sink that only answers (scripts/bench-otlp.sh)
       OTLP_RECEIVER_TRACES_WAIT=1 answers every /v1/traces request 429 with Retry-After: 1 (a collector asking
       to wait; the request is kept as {"kind": "traces_refused"})
       OTLP_RECEIVER_METRICS_WAIT=1 answers 429 with Retry-After: 1 to a metrics request whose counter values it
       has not seen before, and accepts the same values sent again (a collector throttling each new export once)
"""

import http.server
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from otlp_decode import decode_metrics, decode_traces  # noqa: E402


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        kind = {"/v1/metrics": "metrics", "/v1/traces": "traces"}.get(self.path)
        if kind is None or self.headers.get("Content-Type") != "application/x-protobuf":
            self.send_response(404)
            self.end_headers()
            return
        if self.server.out == "-":
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if kind == "traces" and os.environ.get("OTLP_RECEIVER_TRACES_WAIT") == "1":
            with open(self.server.out, "a") as f:
                f.write(json.dumps({"kind": "traces_refused"}) + "\n")
            self.send_response(429)
            self.send_header("Retry-After", "1")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        decoded = decode_traces(body) if kind == "traces" else decode_metrics(body)
        decoded["kind"] = kind
        if kind == "metrics" and os.environ.get("OTLP_RECEIVER_METRICS_WAIT") == "1":
            key = json.dumps([m.get("sum") and [p["value"] for p in m["sum"]["points"]] for m in decoded["metrics"]])
            if key not in self.server.seen:
                self.server.seen.add(key)
                decoded["kind"] = "metrics_refused"
                with open(self.server.out, "a") as f:
                    f.write(json.dumps(decoded, sort_keys=True) + "\n")
                self.send_response(429)
                self.send_header("Retry-After", "1")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        decoded["headers"] = {k.lower(): v for k, v in self.headers.items() if k.lower().startswith("x-")}
        with open(self.server.out, "a") as f:
            f.write(json.dumps(decoded, sort_keys=True) + "\n")
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    server.out = argv[1]
    server.seen = set()
    with open(argv[2] + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(argv[2] + ".tmp", argv[2])
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
