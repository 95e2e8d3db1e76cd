#!/usr/bin/env bash
# What the distributed-run tests need beyond the build: kubernetes-validate (offline schema check of
# deploy/kubernetes/) and prometheus-client (parses the metrics endpoint's exposition). Installs only what is
# missing, so it costs nothing once installed.
set -euo pipefail
if ! command -v python3 >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3 python3-pip
fi
need=()
python3 -c "import kubernetes_validate" >/dev/null 2>&1 || need+=(kubernetes-validate)
python3 -c "import prometheus_client" >/dev/null 2>&1 || need+=(prometheus-client)
if [ ${#need[@]} -gt 0 ]; then
    echo "installing Python test packages: ${need[*]}"
    python3 -m pip install -q "${need[@]}" 2>/dev/null \
        || python3 -m pip install -q --break-system-packages "${need[@]}"
fi
