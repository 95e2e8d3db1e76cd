#!/usr/bin/env bash
# What the test suite needs beyond the build: headless Chromium (report screenshot test) and Python's
# hdrhistogram package (reads our .hlog files). Installs only what is missing, so it is quick once installed.
set -euo pipefail
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if ! command -v chromium >/dev/null 2>&1; then
    echo "installing chromium (report screenshot test)"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium
fi
if ! command -v python3 >/dev/null 2>&1; then
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3 python3-pip
fi
if ! python3 -c "import hdrh" >/dev/null 2>&1; then
    echo "installing the Python hdrhistogram package (.hlog decoding test)"
    python3 -m pip install -q hdrhistogram 2>/dev/null \
        || python3 -m pip install -q --break-system-packages hdrhistogram
fi
