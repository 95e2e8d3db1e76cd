#!/usr/bin/env bash
# Installs the Debian packages callstorm builds against, only those that are missing.
set -euo pipefail
source "$(dirname "$0")/packages.sh"
packages=(time pkg-config libcurl4-openssl-dev libjemalloc-dev libyaml-dev libnghttp2-dev libssl-dev zlib1g-dev curl)
ensure_packages "${packages[@]}"
command -v swift >/dev/null 2>&1 || [ -x /opt/swift/usr/bin/swift ] || {
    echo "swift is not on PATH (expected the toolchain at /opt/swift)" >&2
    exit 1
}
