#!/usr/bin/env bash
# Installs the Debian packages callstorm builds against, only those that are missing.
set -euo pipefail
packages=(time pkg-config libcurl4-openssl-dev libjemalloc-dev libyaml-dev libnghttp2-dev libssl-dev zlib1g-dev curl)
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
command -v swift >/dev/null 2>&1 || [ -x /opt/swift/usr/bin/swift ] || {
    echo "swift is not on PATH (expected the toolchain at /opt/swift)" >&2
    exit 1
}
