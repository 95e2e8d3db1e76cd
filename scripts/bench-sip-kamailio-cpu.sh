#!/usr/bin/env bash
# usage: scripts/bench-sip-kamailio-cpu.sh [RATE] [SHORT] [LONG] [OUT] — the bench's Kamailio's CPU per call, on
# the awake call (Benchmarks/scenarios/sip-hold.yaml) and on the push wake-up path (sip-hold-wake.yaml), as
# scripts/bench-sip.sh runs them: Kamailio (WITH_PUSH, pushing to the run's gateway) pinned to core 1, callstorm to
# core 0. For each call, two runs at RATE calls/s (default 200) of SHORT and LONG seconds (5 and 15) with the same
# devices, each against a fresh Kamailio; Kamailio's task-clock over each run (the CPU time of all its processes,
# the kernel's sum_exec_runtime from /proc/PID/schedstat, what `perf stat -e task-clock` counts) and its context
# switches; the difference of two runs over the difference of the calls completed is one call's,
# start-up registrations and drain cancelled out. CPU-seconds depend on the machine's load far less than times do
# (a cache shared with a busy neighbour still slows them): label them, and the highest rate they imply for one
# core (1 ÷ CPU per call), "not judged" unless the machine was quiet. Trust a pair only when both runs completed
# every call: a call that fails leaves its cost to the others. Also the datagrams Kamailio's UDP socket dropped.
# env: CALLSTORM_BIN (.build/release/callstorm), KAMAILIO_CFG (deploy/kamailio/kamailio.cfg), KAMAILIO_ARGS (more
# arguments after the bench's: "-n 1"; "-x qm -X qm" for Kamailio's default allocator), CALLS ("plain wake"; "sipp":
# the awake call by SIPp's UAC and UAS instead, as bench-sip.sh runs them, which reach rates callstorm does not),
# PERF_RECORD (0; 1: `perf record` of Kamailio's processes during each long run, then `perf report --sort dso,sym`
# into OUT/NAME.perf.txt), KEEP=1 keeps OUT.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
rate=${1:-200}; short=${2:-5}; long=${3:-15}
bin=${CALLSTORM_BIN:-$root/.build/release/callstorm}
d=${4:-$(mktemp -d)}
mkdir -p "$d"
source "$root/scripts/bench-sip-lib.sh"
gport=$(free_port)
jwt=$(push_jwt "$d/key.p8")
push_keep "http://127.0.0.1:$gport" "$jwt"
read -r -a extra <<< "${KAMAILIO_ARGS:-}"

# kamailio_cpu PID: "ns switches" of Kamailio's main process and its workers together: CPU time (ns, schedstat) and
# context switches (voluntary and not). (The user/system split of /proc/PID/stat is sampled at clock ticks and read
# 0.40 s and 0.00 s of system time in two runs of ~0.4 and ~0.8 CPU-s here: `perf record` tells the kernel's share.)
kamailio_cpu() {
    local ns=0 sw=0 pid
    for pid in "$1" $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
        ns=$(( ns + $(cut -d' ' -f1 "/proc/$pid/schedstat" 2>/dev/null || echo 0) ))
        sw=$(( sw + $(awk '/ctxt_switches/ {n += $2} END {print n + 0}' "/proc/$pid/status" 2>/dev/null || echo 0) ))
    done
    echo "$ns $sw"
}
completed() {
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['counters'].get('calls.completed', 0))" "$1" \
        2>/dev/null || echo 0
}
# sipp_calls NAME SECONDS: SIPp's hold call (deploy/sipp/uac-hold.xml to uas-hold.xml through Kamailio, as
# bench-sip.sh's sipp_run) at RATE for SECONDS on core 0; its successful calls in $d/NAME/summary.json's shape.
sipp_calls() {
    local uport cport upid
    uport=$(free_port); cport=$(free_port)
    mkdir -p "$d/$1"
    (cd "$d/$1" && sipp -sf "$root/deploy/sipp/uas-hold-register.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 \
        -p "$uport" -au sipp-uas -ap callstorm -m 1 -timeout 10s -nostdin > reg.out 2>&1)
    (cd "$d/$1" && exec taskset -c 0 sipp -sf "$root/deploy/sipp/uas-hold.xml" -i 127.0.0.1 -p "$uport" \
        -m $(( rate * $2 )) -timeout "$(( $2 + 30 ))s" -nostdin > uas.out 2>&1) & upid=$!
    sleep 0.5
    (cd "$d/$1" && taskset -c 0 sipp -sf "$root/deploy/sipp/uac-hold.xml" -s sipp-uas "127.0.0.1:$kport" \
        -i 127.0.0.1 -p "$cport" -m $(( rate * $2 )) -r "$rate" -timeout "$(( $2 + 30 ))s" -nostdin \
        -trace_stat -stf uac-stat.csv > uac.out 2>&1)
    wait_exit "$upid" 5 || { kill "$upid" 2>/dev/null; wait "$upid" 2>/dev/null; }
    python3 - "$d/$1" <<'PY'
import csv, json, os, sys
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "uac-stat.csv")), delimiter=";"))
done = int(rows[-1]["SuccessfulCall(C)"]) if rows else 0
json.dump({"counters": {"calls.completed": done}}, open(os.path.join(sys.argv[1], "summary.json"), "w"))
PY
}
udp_drops() {
    awk -v p="$(printf '0100007F:%04X' "$1")" '$2 == p {print $NF}' /proc/net/udp
}

# one NAME SCENARIO SECONDS: a fresh Kamailio, callstorm's run, and the line "NAME calls cpu_ns drops".
one() {
    local name=$1 scenario=$2 secs=$3 ns0 sw0 ns1 sw1 drops0 ppid w
    kamailio_scratch 1024 -A WITH_PUSH -A "PUSH_URL=\"http://127.0.0.1:$gport\"" -A "PUSH_JWT=\"$jwt\"" \
        "${push_keep[@]}" "${extra[@]}"
    if [ "$(nproc)" -ge 2 ]; then
        for w in "$kpid" $(cat "/proc/$kpid/task/$kpid/children" 2>/dev/null); do taskset -p -c 1 "$w" > /dev/null; done
    fi
    [ "$scenario" = sipp ] || sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s/127.0.0.1:2197/127.0.0.1:$gport/" \
        -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${secs}s|" \
        -e "s/^devices: [0-9]*/devices: $(( rate * 3 > 50 ? rate * 3 : 50 ))/" \
        "$root/Benchmarks/scenarios/$scenario" > "$d/$name.yaml"
    read -r ns0 sw0 < <(kamailio_cpu "$kpid"); drops0=$(udp_drops "$kport")
    if [ "${PERF_RECORD:-0}" = 1 ] && [ "$secs" = "$long" ]; then
        perf record -F 1999 -g -o "$d/$name.perf.data" \
            -p "$(echo "$kpid" $(cat "/proc/$kpid/task/$kpid/children") | tr ' ' ,)" > /dev/null 2>&1 & ppid=$!
    fi
    if [ "$scenario" = sipp ]; then sipp_calls "$name" "$secs"; else
        taskset -c 0 "$bin" run "$d/$name.yaml" --workers 1 --out "$d/$name" --quiet > "$d/$name.log" 2>&1
    fi
    read -r ns1 sw1 < <(kamailio_cpu "$kpid")
    if [ -n "${ppid:-}" ]; then
        kill -INT "$ppid"; wait "$ppid" 2>/dev/null
        perf report -i "$d/$name.perf.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null \
            | grep -v '^#' | grep -v '^$' | head -60 > "$d/$name.perf.txt"
        perf report -i "$d/$name.perf.data" --no-children --sort dso --stdio -g none 2>/dev/null \
            | grep -v '^#' | grep -v '^$' | head -20 > "$d/$name.perf-dso.txt"
    fi
    echo "$name $(completed "$d/$name/summary.json") $(( ns1 - ns0 )) $(( $(udp_drops "$kport") - drops0 ))" \
        "$(( sw1 - sw0 ))" >> "$d/cpu.txt"
    cp "$d/kamailio.log" "$d/$name.kamailio.log"
    kamailio_stop "$kpid"
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
: > "$d/cpu.txt"
for call in ${CALLS:-plain wake}; do
    case $call in wake) scenario=sip-hold-wake.yaml ;; sipp) scenario=sipp ;; *) scenario=sip-hold.yaml ;; esac
    one "$call-$short" "$scenario" "$short"
    one "$call-$long" "$scenario" "$long"
done
python3 - "$d/cpu.txt" "$rate" "$load" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import sys
path, rate, before, after = sys.argv[1:]
rows = {}
for line in open(path):
    name, calls, ns, drops, switches = line.split()
    rows[name] = (int(calls), int(ns), int(drops), int(switches))
print(f"Kamailio's CPU per call at {rate} calls/s (load average {before} before, {after} after: CPU-seconds are "
      "not judged unless the machine was quiet)")
calls = sorted({n.rsplit("-", 1)[0] for n in rows}, key=lambda c: ("plain", "wake", "sipp").index(c))
for call in calls:
    runs = sorted((v for n, v in rows.items() if n.rsplit("-", 1)[0] == call), key=lambda v: v[0])
    for c, ns, drops, sw in runs:
        print(f"  {call}: {c:,} calls completed, Kamailio {ns / 1e9:.3f} CPU-s, {sw:,} context switches, UDP drops "
              f"{drops:,}")
    if len(runs) == 2 and runs[1][0] > runs[0][0]:
        n = runs[1][0] - runs[0][0]
        per, per_sw = ((runs[1][i] - runs[0][i]) / n for i in (1, 3))
        print(f"  {call}: {per / 1e6:.3f} ms of Kamailio's CPU per call, {per_sw:.1f} context switches per call (the "
              f"two runs' difference); one core carries at most ~{1e9 / per:,.0f} calls/s at that cost")
PY
