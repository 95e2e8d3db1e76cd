#!/usr/bin/env bash
# What the test suite needs beyond the build, installed only when missing (quick once installed):
# headless Chromium (report screenshot test), nghttp2's h2load and nghttpd (interop tests, gateway bench),
# curl and openssl (interop tests), and from PyPI: hdrhistogram (reads our .hlog files), aioapns and h2
# (an APNs client that offers no ALPN), websockets (a WebSocket peer we did not write). Called by `make test` and
# `make bench`.
set -euo pipefail
source "$(dirname "$0")/packages.sh"
packages=(chromium nghttp2-client nghttp2-server python3 python3-pip curl openssl)
ensure_packages "${packages[@]}"
if ! python3 -c "import hdrh" >/dev/null 2>&1; then
    echo "installing the Python hdrhistogram package (.hlog decoding test)"
    pip_install hdrhistogram
fi
if ! python3 -c "import aioapns, h2" >/dev/null 2>&1; then
    echo "installing python packages: aioapns h2"
    pip_install aioapns h2
fi
if ! python3 -c "import websockets" >/dev/null 2>&1; then
    echo "installing the Python websockets package (WebSocket interop peer)"
    pip_install websockets
fi
