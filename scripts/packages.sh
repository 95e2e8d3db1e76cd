# Sourced by deps.sh, test-deps.sh and bench-deps.sh: installs what is missing, and nothing else.

# ensure_packages PKG...: apt-get installs the Debian packages dpkg does not know yet (one apt-get update first).
ensure_packages() {
    local missing=() p sudo=""
    for p in "$@"; do
        dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    echo "installing missing packages: ${missing[*]}"
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
}

# pip_install ARGS...: pip into the system Python, also where Debian marks it externally managed.
pip_install() {
    python3 -m pip install --quiet --disable-pip-version-check "$@" 2>/dev/null \
        || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages "$@"
}
