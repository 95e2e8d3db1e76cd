#!/usr/bin/env bash
# What the test suite needs beyond the build, installed only when missing (quick once installed):
# headless Chromium (report screenshot test), nghttp2's h2load and nghttpd (interop tests, gateway bench),
# curl and openssl (interop tests), and from PyPI: hdrhistogram (reads our .hlog files), and the published APNs
# clients the gateway is tried with unchanged: aioapns (no ALPN), kalyke-apns and pyapns-client (through
# HTTPS_PROXY), httpx with HTTP/2, h2; websockets (a WebSocket peer we did not write); opentelemetry-proto, -sdk and
# the OTLP exporter (the reference decoder and encoder of OTLP); Kamailio with its
# http_client module (the SIP server the SIP tests start as a user process), SIPp (sip-tester), libosip2 (the
# parser docs/SIP.md measured ours against) rtpengine-daemon (the media relay, started as a user process) and baresip-core (a user agent with audio,
# BaresipMediaRunTests). Called by `make test` and `make bench`.
set -euo pipefail
source "$(dirname "$0")/packages.sh"
packages=(chromium nghttp2-client nghttp2-server python3 python3-pip curl openssl kamailio kamailio-utils-modules
          kamailio-tls-modules kamailio-websocket-modules
          sip-tester libosip2-dev rtpengine-daemon baresip-core)
ensure_packages "${packages[@]}"
if ! python3 -c "import hdrh" >/dev/null 2>&1; then
    echo "installing the Python hdrhistogram package (.hlog decoding test)"
    pip_install hdrhistogram
fi
if ! python3 -c "import aioapns, h2, kalyke, pyapns_client, httpx" >/dev/null 2>&1; then
    echo "installing python packages: aioapns h2 kalyke-apns pyapns-client httpx[http2]"
    # Best effort: without the package index the interop tests skip and say so.
    pip_install aioapns h2 kalyke-apns pyapns-client 'httpx[http2]' || echo "could not install them from PyPI"
fi
if ! python3 -c "import prometheus_client" >/dev/null 2>&1; then
    echo "installing the Python prometheus-client package (the /metrics exposition's reference parser)"
    pip_install prometheus-client
fi
if ! python3 -c "import websockets" >/dev/null 2>&1; then
    echo "installing the Python websockets package (WebSocket interop peer)"
    pip_install websockets
fi
if ! python3 -c "import opentelemetry.proto, opentelemetry.sdk, opentelemetry.exporter.otlp.proto.common" \
        >/dev/null 2>&1; then
    echo "installing python packages: opentelemetry-proto opentelemetry-sdk opentelemetry-exporter-otlp-proto-http"
    # Best effort: without the package index the OTLP reference tests skip and say so.
    pip_install opentelemetry-proto opentelemetry-sdk opentelemetry-exporter-otlp-proto-http \
        || echo "could not install them from PyPI"
fi
