#!/usr/bin/env bash
# Installs what the interop tests and the gateway bench launch, only when missing: nghttp2's h2load and nghttpd
# (Debian), and the Python APNs client aioapns with the h2 library (PyPI). Called by `make test` and `make bench`.
set -euo pipefail
packages=(nghttp2-client nghttp2-server python3 python3-pip curl openssl)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing missing packages: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
if ! python3 -c "import aioapns, h2" >/dev/null 2>&1; then
    echo "installing python packages: aioapns h2"
    python3 -m pip install --quiet --disable-pip-version-check aioapns h2 \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages aioapns h2
fi
