#!/usr/bin/env bash
# usage: scripts/perf-syscalls.sh sip|wake|sipp|media [RATE] [OUT]  — system calls, context switches and CPU per SIP call
# or per RTP packet (issue 33, "Sockets and syscalls"; docs/SIP.md and docs/MEDIA.md have the figures it gave).
#   sip:   Benchmarks/scenarios/sip-hold.yaml at RATE calls/s (100) for 10 s through one Kamailio, as
#          scripts/bench-sip.sh's cs_run writes it; per call completed. Then `perf record` of the same run and the
#          kernel's share of its samples (`perf report --sort dso`).
#   wake:  Benchmarks/scenarios/sip-hold-wake.yaml at RATE calls/s (100) for 10 s: the push wake-up path, Kamailio
#          with WITH_PUSH pushing to the run's gateway, as bench-sip.sh's wake run; per call completed. Then the
#          context switches by thread (`perf record -e context-switches`, `--sort comm`): which threads wake.
#          Kamailio keeps a push connection per task worker as bench-sip.sh's does (PUSH_KEEP=0: one per push).
#   sipp:  the same hold call between SIPp 3.6.1's UAC and UAS (deploy/sipp/*-hold.xml, as bench-sip.sh's
#          sipp_run starts them) at RATE calls/s (100) for 10 s through one Kamailio: the same counts for each of the
#          two processes and both together, per call the UAC completed (the peer's side of the sip mode's counts).
#   media: Benchmarks/scenarios/sip-media.yaml at RATE calls/s (20) for 10 s with 4 s of talk (about 8 × RATE
#          streams at once), RTP straight between the devices (no relay); per RTP packet sent + received.
# perf's syscall tracepoints count every call the process makes; counts hardly depend on the machine's load (a
# late loop batches a little more), times and shares do: the load average is printed beside them.
# env: CALLSTORM_BIN (.build/release/callstorm), PERF_RECORD (1; 0: the counts only, no second run), PIN (see below). Needs perf,
# kamailio. KEEP=1 keeps OUT (default a temp dir).
# THREADS=1 (sip and wake): one more run recorded with every system call's entry, every switch and every minor page
# fault (`perf record -e raw_syscalls:sys_enter,sched:sched_switch,minor-faults -c 1`), then per call completed by
# thread: each system call by name, voluntary and involuntary switches (a switch out of a thread that is not
# runnable is voluntary: it went to sleep), minor faults (scripts/perf-per-thread.py).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: scripts/perf-syscalls.sh sip|wake|media [RATE] [OUT]}
bin=${CALLSTORM_BIN:-$root/.build/release/callstorm}
d=${3:-$(mktemp -d)}
mkdir -p "$d"
source "$root/scripts/bench-sip-lib.sh"
gport=$(free_port)
shm=256 push=()
if [ "$mode" = wake ]; then
    jwt=$(push_jwt "$d/key.p8")
    push_keep "http://127.0.0.1:$gport" "$jwt"
    shm=1024 push=(-A WITH_PUSH -A "PUSH_URL=\"http://127.0.0.1:$gport\"" -A "PUSH_JWT=\"$jwt\"" "${push_keep[@]}")
fi
kamailio_scratch "$shm" "${push[@]}"
case $mode in
    sip) r=${2:-100}
        sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $r/s, for: 10s|" \
            -e "s/^devices: [0-9]*/devices: $(( r * 3 > 50 ? r * 3 : 50 ))/" \
            "$root/Benchmarks/scenarios/$sip_hold" > "$d/run.yaml" ;;
    wake) r=${2:-100}
        sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s/127.0.0.1:2197/127.0.0.1:$gport/" \
            -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $r/s, for: 10s|" \
            -e "s/^devices: [0-9]*/devices: $(( r * 3 > 50 ? r * 3 : 50 ))/" \
            "$root/Benchmarks/scenarios/sip-hold-wake.yaml" > "$d/run.yaml" ;;
    media) r=${2:-20}
        sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $r/s, for: 10s|" \
            -e "s/^devices: [0-9]*/devices: $(( r * 20 ))/" "$root/Benchmarks/scenarios/sip-media.yaml" > "$d/run.yaml" ;;
    sipp) r=${2:-100} ;;
    *) echo "perf-syscalls: sip, wake, sipp or media, not '$mode'" >&2; exit 2 ;;
esac
events=task-clock,context-switches,minor-faults,raw_syscalls:sys_enter
for call in epoll_wait epoll_pwait2 poll ppoll select pselect6 recvfrom recvmmsg sendto sendmmsg read write timerfd_settime epoll_ctl socket bind \
    accept4 close futex madvise mmap munmap fsync; do
    events=$events,syscalls:sys_enter_$call
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
# The wake run is pinned as bench-sip.sh pins it (callstorm on core 0, Kamailio on core 1): on its one core every
# hand-off between callstorm's threads is a context switch.
pin=()
# PIN=1 pins the sip and media runs the same way: unpinned, the kernel's sync wake-up of Kamailio's UDP worker
# (sock_def_readable) may pull it onto callstorm's core, which then preempts callstorm at the end of its sendto.
if { [ "$mode" = wake ] || [ "${PIN:-0}" = 1 ]; } && [ "$(nproc)" -ge 2 ]; then
    pin=(taskset -c 0)
    taskset -p -c 1 "$kpid" > /dev/null
    for w in $(cat "/proc/$kpid/task/$kpid/children" 2>/dev/null); do taskset -p -c 1 "$w" > /dev/null; done
fi
if [ "$mode" = sipp ]; then
    uport=$(free_port) cport=$(free_port)
    (cd "$d" && sipp -sf "$root/deploy/sipp/uas-hold-register.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 \
        -p "$uport" -au sipp-uas -ap callstorm -m 1 -timeout 10s -timeout_error -nostdin > reg.out 2>&1) \
        || { echo "perf-syscalls: SIPp's UAS did not register (see $d/reg.out)" >&2; exit 1; }
    (cd "$d" && exec perf stat -e "$events" -o "$d/uas.stat" "${pin[@]}" sipp -sf "$root/deploy/sipp/uas-hold.xml" \
        -i 127.0.0.1 -p "$uport" -m $(( r * 10 )) -timeout 70s -nostdin -trace_stat -stf uas-stat.csv -fd 1 \
        > uas.out 2>&1) & upid=$!
    sleep 0.5
    (cd "$d" && perf stat -e "$events" -o "$d/uac.stat" "${pin[@]}" sipp -sf "$root/deploy/sipp/uac-hold.xml" \
        -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 -p "$cport" -m $(( r * 10 )) -r "$r" -timeout 70s \
        -timeout_error -nostdin -trace_stat -stf uac-stat.csv -fd 1 > uac.out 2>&1) || true
    # The UAS ends by itself after its calls; one that waits for calls the UAC failed is stopped after 5 s (its
    # own PID, perf's child, so that perf still writes its counts).
    for _ in $(seq 50); do kill -0 "$upid" 2>/dev/null || break; sleep 0.1; done
    for child in $(cat "/proc/$upid/task/$upid/children" 2>/dev/null); do kill "$child" 2>/dev/null; done
    wait "$upid" 2>/dev/null
    python3 - "$d" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import csv, re, sys
d, load = sys.argv[1:]
rows = list(csv.DictReader(open(f"{d}/uac-stat.csv"), delimiter=";"))
n = int(rows[-1]["SuccessfulCall(C)"]) if rows else 0
print(f"sipp: {n} calls completed (the UAC's SuccessfulCall); load average {load} (times not judged)")
totals = {}
for side in ("uac", "uas"):
    for line in open(f"{d}/{side}.stat"):
        m = re.match(r"\s*([\d,.]+)\s+(msec task-clock|\S+)", line)
        if m and any(k in m.group(2) for k in ("sys_enter", "context", "task-clock", "faults")):
            v = float(m.group(1).replace(",", ""))
            totals.setdefault(m.group(2), {})[side] = v
for name, v in totals.items():
    both = v.get("uac", 0) + v.get("uas", 0)
    print(f"  {name:42s} uac {v.get('uac', 0) / max(1, n):8.3f}  uas {v.get('uas', 0) / max(1, n):8.3f}  "
          f"both per call: {both / max(1, n):.3f}")
PY
    exit 0
fi
perf stat -e "$events" -o "$d/stat.txt" "${pin[@]}" "$bin" run "$d/run.yaml" --workers 1 --out "$d/run" --quiet \
    > "$d/run.log" 2>&1
if [ "$mode" = sip ] && [ "${PERF_RECORD:-1}" = 1 ]; then
    perf record -e cpu-clock -F 1999 -o "$d/perf.data" "$bin" run "$d/run.yaml" --workers 1 --out "$d/rec" \
        --quiet > "$d/rec.log" 2>&1
    kernel=$(perf report -i "$d/perf.data" --sort dso --stdio 2>/dev/null | awk '/kernel/ {print $1; exit}')
fi
if [ "$mode" = wake ] && [ "${PERF_RECORD:-1}" = 1 ]; then
    perf record -e context-switches -c 1 -g -o "$d/switches.data" "${pin[@]}" "$bin" run "$d/run.yaml" --workers 1 \
        --out "$d/rec" --quiet > "$d/rec.log" 2>&1
    perf report -i "$d/switches.data" --sort comm --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -12 \
        > "$d/switches-by-thread.txt"
fi
if [ "$mode" != media ] && [ "${THREADS:-0}" = 1 ]; then
    perf record -e raw_syscalls:sys_enter,sched:sched_switch,minor-faults -c 1 -o "$d/threads.data" "${pin[@]}" \
        "$bin" run "$d/run.yaml" --workers 1 --out "$d/threads" --quiet > "$d/threads.log" 2>&1
    perf script -i "$d/threads.data" -F tid,comm,event,trace 2>/dev/null \
        | python3 "$root/scripts/perf-per-thread.py" "$d/threads/summary.json" > "$d/per-thread.txt"
fi
python3 - "$d" "$mode" "$load" "${kernel:-}" <<'PY'
import json, os, re, sys
d, mode, load, kernel = sys.argv[1:]
c = json.load(open(os.path.join(d, "run", "summary.json")))["counters"]
if mode in ("sip", "wake"):
    unit, n, what = "call", c.get("calls.completed", 0), ""
else:
    unit, n = "RTP packet", c.get("media.packets_sent", 0) + c.get("media.packets_received", 0)
    what = f", {n} RTP packets sent and received"
print(f"{mode}: {c.get('calls.completed', 0)} calls completed{what}; load average {load} (times and shares not "
      "judged unless the machine was quiet; a loop running late batches more, so counts too)")
for line in open(os.path.join(d, "stat.txt")):
    m = re.match(r"\s*([\d,.]+)\s+(msec task-clock|\S+)", line)
    if m and any(k in m.group(2) for k in ("sys_enter", "context", "task-clock", "faults")):
        v = float(m.group(1).replace(",", ""))
        print(f"  {m.group(2):42s} {v:14,.0f}   per {unit}: {v / max(1, n):.3f}")
if kernel:
    print(f"  kernel's share of perf record's samples: {kernel}")
per_thread = os.path.join(d, "per-thread.txt")
if os.path.exists(per_thread):
    print(open(per_thread).read().rstrip())
by_thread = os.path.join(d, "switches-by-thread.txt")
if os.path.exists(by_thread):
    print("  context switches by thread (a second run, perf record -e context-switches, share of all):")
    for line in open(by_thread):
        print("   " + line.rstrip())
PY
