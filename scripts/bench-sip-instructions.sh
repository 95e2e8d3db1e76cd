#!/usr/bin/env bash
# usage: scripts/bench-sip-instructions.sh [RATE] [N1] [N2] — instructions per SIP call under callgrind, the client
# side only, for the call of `make bench`'s SIP section (scripts/bench-sip.sh): SIPp's UAC and UAS
# (deploy/sipp/uac-hold.xml, uas-hold.xml) and callstorm (Benchmarks/scenarios/sip-hold.yaml, both ends), each
# through one native Kamailio. Each side runs twice, N1 and N2 calls at RATE calls/s (default 20/s, 40 and 120
# calls), with the same devices, and the difference of the instruction totals is divided by N2 − N1: start-up,
# registration and the report cancel out, what is left is the cost of one call. Instruction counts do not change
# with the machine's load, so this compares the two on a busy machine where timed runs cannot. Timeouts and drains
# are long so valgrind's slowness changes no outcome. Prints one line per side; KEEP=1 keeps the files.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
rate=${1:-20}; n1=${2:-40}; n2=${3:-120}
bin=${CALLSTORM_BIN:-$root/.build/release/callstorm}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
d=$(mktemp -d)
modules=$(dirname "$(ls /usr/lib/*/kamailio/modules/tm.so /usr/lib/kamailio/modules/tm.so 2>/dev/null | head -1)")
kport=$(free_port)
mkdir -p "$d/kamailio"
/usr/sbin/kamailio -f "$root/deploy/kamailio/kamailio.cfg" -DD -E -L "$modules" -Y "$d/kamailio" \
    -l "udp:127.0.0.1:$kport" -l "tcp:127.0.0.1:$kport" -m 64 -M 8 > "$d/kamailio.log" 2>&1 & kpid=$!
trap 'kill $kpid 2>/dev/null; wait $kpid 2>/dev/null; [ -n "${KEEP:-}" ] && echo "$d" || rm -rf "$d"' EXIT
sleep 1
collected() { grep -o "Collected : [0-9]*" "$1" | awk '{print $3}'; }
cg() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@"; }

# sipp_total N: instructions of the UAC and UAS together for N calls.
sipp_total() {
    local uport cport upid
    uport=$(free_port); cport=$(free_port)
    sipp -sf "$root/deploy/sipp/uas-hold-register.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 -p "$uport" \
        -au sipp-uas -ap callstorm -m 1 -timeout 10s -nostdin > "$d/reg.out" 2>&1
    (cd "$d" && cg sipp -sf "$root/deploy/sipp/uas-hold.xml" -i 127.0.0.1 -p "$uport" -m "$1" -timeout 300s \
        -nostdin > "uas-$1.out" 2> "uas-$1.cg") & upid=$!
    sleep 3
    (cd "$d" && cg sipp -sf "$root/deploy/sipp/uac-hold.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 -trace_stat \
        -stf "uac-$1.csv" -p "$cport" -m "$1" -r "$rate" -timeout 300s -nostdin > "uac-$1.out" 2> "uac-$1.cg")
    wait "$upid"
    echo $(( $(collected "$d/uac-$1.cg") + $(collected "$d/uas-$1.cg") ))
}

# cs_total N: callstorm's instructions for N calls (devices fixed, so registration is the same in both runs).
cs_total() {
    local secs=$(( $1 / rate ))
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${secs}s|" \
        -e "s/^devices: [0-9]*/devices: $(( rate * 3 > 60 ? rate * 3 : 60 ))/" -e "s/^drain: 10s/drain: 60s/" \
        -e "s/action_timeout: 5s/action_timeout: 60s/" "$root/Benchmarks/scenarios/sip-hold.yaml" > "$d/cs-$1.yaml"
    objcopy --strip-debug "$bin" "$d/cs"
    cg "$d/cs" run "$d/cs-$1.yaml" --workers 1 --out "$d/cs-$1" --quiet > "$d/cs-$1.log" 2> "$d/cs-$1.cg"
    collected "$d/cs-$1.cg"
}

completed() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['counters'].get('calls.completed'))" "$1"; }
s1=$(sipp_total "$n1"); s2=$(sipp_total "$n2")
successful() { python3 -c "import csv,sys; print(list(csv.DictReader(open(sys.argv[1]), delimiter=';'))[-1]['SuccessfulCall(C)'])" "$1"; }
echo "SIPp UAC + UAS: $s1 instructions for $n1 calls (successful $(successful "$d/uac-$n1.csv")), $s2 for $n2" \
     "(successful $(successful "$d/uac-$n2.csv")): $(( (s2 - s1) / (n2 - n1) )) per call"
c1=$(cs_total "$n1"); c2=$(cs_total "$n2")
echo "callstorm: $c1 instructions for $n1 calls (completed $(completed "$d/cs-$n1/summary.json")), $c2 for $n2" \
     "(completed $(completed "$d/cs-$n2/summary.json")): $(( (c2 - c1) / (n2 - n1) )) per call"
