#!/usr/bin/env python3
"""A test OTLP/HTTP receiver: decodes what callstorm posts to /v1/metrics and /v1/traces with PyPI's
opentelemetry-proto (scripts/otlp_decode.py) and appends one JSON line per request to OUT. Not a collector: it
keeps nothing else and answers every request with an empty ExportServiceResponse (200).

Usage: otlp-receiver.py OUT PORTFILE    listens on 127.0.0.1, a free port written to PORTFILE once listening
       OUT "-" decodes and keeps nothing: a sink that only answers (scripts/bench-otlp.sh)
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
        decoded = decode_traces(body) if kind == "traces" else decode_metrics(body)
        decoded["kind"] = kind
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
    with open(argv[2] + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(argv[2] + ".tmp", argv[2])
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
