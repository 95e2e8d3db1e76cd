#!/usr/bin/env bash
# usage: scripts/bench-sip-kamailio-cpu.sh [RATE] [SHORT] [LONG] [OUT] — the bench's Kamailio's CPU per call, on
# the awake call (Benchmarks/scenarios/sip-hold.yaml) and on the push wake-up path (sip-hold-wake.yaml), as
# scripts/bench-sip.sh runs them: Kamailio (WITH_PUSH, pushing to the run's gateway) pinned to core 1, callstorm to
# core 0. For each call, two runs at RATE calls/s (default 200) of SHORT and LONG seconds (5 and 15) with the same
# devices, each against a fresh Kamailio; Kamailio's task-clock over each run (the CPU time of all its processes,
# the kernel's sum_exec_runtime from /proc/PID/schedstat, what `perf stat -e task-clock` counts), its kernel part
# and its context switches; the difference of two runs over the difference of the calls completed is one call's,
# start-up registrations and drain cancelled out. CPU-seconds depend on the machine's load far less than times do
# (a cache shared with a busy neighbour still slows them): label them, and the highest rate they imply for one
# core (1 ÷ CPU per call), "not judged" unless the machine was quiet. Trust a pair only when both runs completed
# every call: a call that fails leaves its cost to the others. Also the datagrams Kamailio's UDP socket dropped.
# env: CALLSTORM_BIN (.build/release/callstorm), KAMAILIO_CFG (deploy/kamailio/kamailio.cfg), KAMAILIO_ARGS (more
# arguments after the bench's: "-n 1"; "-x qm -X qm" for Kamailio's default allocator), CALLS ("plain wake"),
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
read -r -a extra <<< "${KAMAILIO_ARGS:-}"

# kamailio_cpu PID: "ns system_ticks switches" of Kamailio's main process and its workers together: CPU time (ns,
# schedstat), the kernel's part of it (clock ticks, /proc/PID/stat) and context switches (voluntary and not).
kamailio_cpu() {
    local ns=0 sys=0 sw=0 pid
    for pid in "$1" $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
        ns=$(( ns + $(cut -d' ' -f1 "/proc/$pid/schedstat" 2>/dev/null || echo 0) ))
        sys=$(( sys + $(awk '{sub(/.*\) /, ""); print $13}' "/proc/$pid/stat" 2>/dev/null || echo 0) ))
        sw=$(( sw + $(awk '/ctxt_switches/ {n += $2} END {print n + 0}' "/proc/$pid/status" 2>/dev/null || echo 0) ))
    done
    echo "$ns $sys $sw"
}
completed() {
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['counters'].get('calls.completed', 0))" "$1" \
        2>/dev/null || echo 0
}
udp_drops() {
    awk -v p="$(printf '0100007F:%04X' "$1")" '$2 == p {print $NF}' /proc/net/udp
}

# one NAME SCENARIO SECONDS: a fresh Kamailio, callstorm's run, and the line "NAME calls cpu_ns drops".
one() {
    local name=$1 scenario=$2 secs=$3 ns0 sys0 sw0 ns1 sys1 sw1 drops0 ppid w
    kamailio_scratch 1024 -A WITH_PUSH -A "PUSH_URL=\"http://127.0.0.1:$gport\"" -A "PUSH_JWT=\"$jwt\"" "${extra[@]}"
    if [ "$(nproc)" -ge 2 ]; then
        for w in "$kpid" $(cat "/proc/$kpid/task/$kpid/children" 2>/dev/null); do taskset -p -c 1 "$w" > /dev/null; done
    fi
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s/127.0.0.1:2197/127.0.0.1:$gport/" \
        -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${secs}s|" \
        -e "s/^devices: [0-9]*/devices: $(( rate * 3 > 50 ? rate * 3 : 50 ))/" \
        "$root/Benchmarks/scenarios/$scenario" > "$d/$name.yaml"
    read -r ns0 sys0 sw0 < <(kamailio_cpu "$kpid"); drops0=$(udp_drops "$kport")
    if [ "${PERF_RECORD:-0}" = 1 ] && [ "$secs" = "$long" ]; then
        perf record -F 1999 -g -o "$d/$name.perf.data" \
            -p "$(echo "$kpid" $(cat "/proc/$kpid/task/$kpid/children") | tr ' ' ,)" > /dev/null 2>&1 & ppid=$!
    fi
    taskset -c 0 "$bin" run "$d/$name.yaml" --workers 1 --out "$d/$name" --quiet > "$d/$name.log" 2>&1
    read -r ns1 sys1 sw1 < <(kamailio_cpu "$kpid")
    if [ -n "${ppid:-}" ]; then
        kill -INT "$ppid"; wait "$ppid" 2>/dev/null
        perf report -i "$d/$name.perf.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null \
            | grep -v '^#' | grep -v '^$' | head -60 > "$d/$name.perf.txt"
        perf report -i "$d/$name.perf.data" --no-children --sort dso --stdio -g none 2>/dev/null \
            | grep -v '^#' | grep -v '^$' | head -20 > "$d/$name.perf-dso.txt"
    fi
    echo "$name $(completed "$d/$name/summary.json") $(( ns1 - ns0 )) $(( $(udp_drops "$kport") - drops0 ))" \
        "$(( sys1 - sys0 )) $(( sw1 - sw0 ))" >> "$d/cpu.txt"
    cp "$d/kamailio.log" "$d/$name.kamailio.log"
    kamailio_stop "$kpid"
}

load=$(cut -d' ' -f1-3 /proc/loadavg)
: > "$d/cpu.txt"
for call in ${CALLS:-plain wake}; do
    scenario=sip-hold.yaml
    [ "$call" = wake ] && scenario=sip-hold-wake.yaml
    one "$call-$short" "$scenario" "$short"
    one "$call-$long" "$scenario" "$long"
done
python3 - "$d/cpu.txt" "$rate" "$load" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(getconf CLK_TCK)" <<'PY'
import sys
path, rate, before, after, tick = sys.argv[1:]
rows = {}
for line in open(path):
    name, calls, ns, drops, sys_ticks, switches = line.split()
    rows[name] = (int(calls), int(ns), int(drops), int(sys_ticks) / int(tick) * 1e9, int(switches))
print(f"Kamailio's CPU per call at {rate} calls/s (load average {before} before, {after} after: CPU-seconds are "
      "not judged unless the machine was quiet)")
calls = sorted({n.rsplit("-", 1)[0] for n in rows}, key=lambda c: c != "plain")
for call in calls:
    runs = sorted((v for n, v in rows.items() if n.rsplit("-", 1)[0] == call), key=lambda v: v[0])
    for c, ns, drops, sys_ns, sw in runs:
        print(f"  {call}: {c:,} calls completed, Kamailio {ns / 1e9:.3f} CPU-s ({sys_ns / 1e9:.2f} in the kernel), "
              f"{sw:,} context switches, UDP drops {drops:,}")
    if len(runs) == 2 and runs[1][0] > runs[0][0]:
        n = runs[1][0] - runs[0][0]
        per, per_sys, per_sw = ((runs[1][i] - runs[0][i]) / n for i in (1, 3, 4))
        print(f"  {call}: {per / 1e6:.3f} ms of Kamailio's CPU per call ({per_sys / 1e6:.3f} in the kernel), "
              f"{per_sw:.1f} context switches per call (the two runs' difference); one core carries at most "
              f"~{1e9 / per:,.0f} calls/s at that cost")
PY
