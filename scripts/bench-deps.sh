#!/usr/bin/env bash
# What `make bench` needs beyond the build, installed only when missing: the peers it measures callstorm against
# (wrk, nginx, h2load and nghttpd from Debian; SIPp and the Kamailio the SIP section drives; Locust, aiohttp and
# websockets from PyPI), curl for the socket section's admin calls, GNU time for peak RSS and CPU seconds, valgrind
# (callgrind instruction counts) and binutils (objcopy), and PyJWT to sign the gateway and SIP benches' provider
# tokens; rtpengine and the Kamailio TLS and WebSocket modules for the media, sip-tls and sip-ws sections.
set -euo pipefail
source "$(dirname "$0")/packages.sh"
packages=(time wrk nginx-light nghttp2-client nghttp2-server valgrind binutils python3 python3-pip openssl curl
          sip-tester kamailio kamailio-utils-modules rtpengine-daemon kamailio-tls-modules kamailio-websocket-modules)
ensure_packages "${packages[@]}"
python3 -c "import jwt, cryptography" >/dev/null 2>&1 || { echo "installing PyJWT"; pip_install "pyjwt[crypto]"; }
python3 -c "import locust" >/dev/null 2>&1 || { echo "installing Locust"; pip_install locust; } || true
# The Locust section's second peer: an asyncio loop over aiohttp (Benchmarks/aiohttp_peer.py).
python3 -c "import aiohttp" >/dev/null 2>&1 || { echo "installing aiohttp"; pip_install aiohttp; } || true
# The socket section's peer: a Python websockets client pool (Benchmarks/ws_peer.py).
python3 -c "import websockets" >/dev/null 2>&1 || { echo "installing websockets"; pip_install websockets; } || true
