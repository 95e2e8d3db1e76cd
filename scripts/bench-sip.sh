#!/usr/bin/env bash
# `make bench`'s SIP section (issue 26): callstorm's SIP devices vs SIPp on the same call through one Kamailio.
# The call: INVITE, 100, 180, 100 ms, 200, ACK, 200 ms, hold (re-INVITE a=sendonly), 200, ACK, 200 ms, resume
# (re-INVITE a=sendrecv), 200, ACK, 200 ms, BYE, 200 (no push: SIPp cannot take one). One Kamailio
# (deploy/kamailio/kamailio.cfg, WITH_PUSH) on the server core for the whole section; every client on the client
# core. At each rung of a ladder of planned call rates (SIP_RATES) for SIP_SECONDS, alternating which goes first:
#   SIPp: a UAS (deploy/sipp/uas-hold.xml, registered once at Kamailio by uas-hold-register.xml from the port it
#         then listens on) and a UAC (uac-hold.xml, -r RATE -m RATE×SECONDS) dialling it through Kamailio;
#   callstorm: Benchmarks/scenarios/sip-hold.yaml, both ends callstorm devices registered at the same Kamailio.
# A side stops climbing after a rung it did not hold. Then callstorm's push wake-up path (sip-hold-wake.yaml: the
# same call, devices asleep, Kamailio parks the INVITE and pushes to the run's gateway) at the highest rate
# callstorm held (the lowest rung when none held), which SIPp cannot run. "Held" and the figures:
# scripts/bench_results_sip.py, which also writes Benchmarks/results/sip-<date>.md and .json.
#
# usage: scripts/bench-sip.sh WORKDIR  (env: CALLSTORM_BIN, SIP_RATES ("100 200 400 800 1600 3200 6400 12800":
# each side climbs until it loses its timing), SIP_SECONDS (10),
# SERVER_CPU, CLIENT_CPU, SIP_RESULTS (Benchmarks/results; "" writes no sip-<date> files)).
# Writes WORKDIR/sip/*; bench-results.py reads them for the suite's rows.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$1/sip
bin=${CALLSTORM_BIN:-$PWD/.build/release/callstorm}
RATES=${SIP_RATES:-"100 200 400 800 1600 3200 6400 12800"}
T=${SIP_SECONDS:-10}
SERVER_CPU=${SERVER_CPU:-1}
CLIENT_CPU=${CLIENT_CPU:-0}
[ "$(nproc)" -ge 2 ] || { SERVER_CPU=0; CLIENT_CPU=0; }
results=${SIP_RESULTS-Benchmarks/results}
# callstorm holds one UDP socket per device (3 per call/s of rate).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
rm -rf "$out" && mkdir -p "$out"
echo "$T" > "$out/seconds"
for tool in sipp /usr/sbin/kamailio /usr/bin/time; do
    command -v "$tool" >/dev/null \
        || { echo "bench-sip: $tool is missing (scripts/test-deps.sh installs it)" >&2; exit 1; }
done
[ -x "$bin" ] || { echo "bench-sip: no callstorm binary at $bin (swift build -c release)" >&2; exit 1; }

pids=()
# On every way out: each process this script started, and the program each GNU time wrapper runs, by PID.
cleanup() {
    for pid in "${pids[@]}"; do
        kill $(cat "/proc/$pid/task/$pid/children" 2>/dev/null) "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# stop_timed PID: ends the program a GNU time process (PID) runs, by the child's own PID, and waits for both.
stop_timed() {
    local child
    for child in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do kill "$child" 2>/dev/null || true; done
    wait "$1" 2>/dev/null || true
}
# wait_exit PID SECONDS: waits up to SECONDS for PID (a child of this shell) to exit; 1 if it did not.
wait_exit() {
    local deadline=$(( $(date +%s) + $2 ))
    while kill -0 "$1" 2>/dev/null; do
        [ "$(date +%s)" -lt "$deadline" ] || return 1
        sleep 0.2
    done
    wait "$1" 2>/dev/null || true
}

cat /proc/loadavg > "$out/loadavg-before"
python3 scripts/bench-load-sampler.py --tree $$ "$out/load-samples" & pids+=($!)
# Run alone, the section is its own suite for scripts/bench_results_load.py's rule (bench.sh judges it otherwise).
echo "$(date +%s%3N) $(cut -d' ' -f1 /proc/loadavg)" > "$out/suite-starts"
echo "$(date +%s%3N)" > "$out/span-sip"

# MARK: - one Kamailio for the whole section, with the push route for the wake-up run's gateway
kport=$(free_port)
gport=$(free_port)
while [ "$gport" = "$kport" ]; do gport=$(free_port); done
modules=$(dirname "$(ls /usr/lib/*/kamailio/modules/tm.so /usr/lib/kamailio/modules/tm.so 2>/dev/null | head -1)")
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$out/key.p8"
# A provider token for Kamailio's pushes (callstorm's gateway holds no key here, so any well-formed ES256 token
# under an hour old passes).
jwt=$(python3 - "$out/key.p8" <<'PY'
import sys, time, jwt
print(jwt.encode({"iss": "BENCHTEAM1", "iat": int(time.time())}, open(sys.argv[1]).read(), algorithm="ES256",
                 headers={"kid": "BENCHKEY01"}))
PY
)
mkdir -p "$out/kamailio"
# -m 4096: at 800 calls/s ~50,000 ended transactions linger (5 s each) beside every rung's usrloc bindings; with
# -m 256 Kamailio ran out of shared memory and answered 500 (docs/SIP.md, "Head to head with SIPp"). The ladder
# climbs to 12,800 calls/s, sixteen times that, so the server's memory is not what ends either side's climb.
kamailio_args=(-f deploy/kamailio/kamailio.cfg -DD -E -L "$modules" -Y "$out/kamailio" -l "udp:127.0.0.1:$kport"
               -l "tcp:127.0.0.1:$kport" -m 4096 -M 8 -A WITH_PUSH -A "PUSH_URL=\"http://127.0.0.1:$gport\""
               -A "PUSH_JWT=\"$jwt\"")
echo "taskset -c $SERVER_CPU kamailio ${kamailio_args[*]/$jwt/<jwt>}" > "$out/kamailio.cmd"
taskset -c "$SERVER_CPU" /usr/sbin/kamailio "${kamailio_args[@]}" > "$out/kamailio.log" 2>&1 & kpid=$!; pids+=("$kpid")
python3 - "$kport" <<'PY' || { echo "bench-sip: Kamailio did not answer; see $out/kamailio.log" >&2; exit 1; }
import socket, sys, time
port = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.2)
for attempt in range(100):
    s.sendto((f"OPTIONS sip:127.0.0.1:{port} SIP/2.0\r\n"
              f"Via: SIP/2.0/UDP 127.0.0.1:9;branch=z9hG4bKbench{attempt};rport\r\n"
              f"Max-Forwards: 70\r\nFrom: <sip:probe@127.0.0.1>;tag=p\r\nTo: <sip:127.0.0.1:{port}>\r\n"
              f"Call-ID: bench-ready-{attempt}\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n").encode(),
             ("127.0.0.1", port))
    try:
        if s.recv(2048).startswith(b"SIP/2.0 200"):
            sys.exit(0)
    except OSError:
        pass
    time.sleep(0.1)
sys.exit(1)
PY
echo "Kamailio pid $kpid on 127.0.0.1:$kport (server core $SERVER_CPU); pushes to 127.0.0.1:$gport"

# MARK: - SIPp: UAS registered once from its port, then UAC -> Kamailio -> UAS
# sipp_run RATE: files in $out/sipp-RATE/; sets `sipp_held` to its verdict line.
sipp_run() {
    local r=$1 d=$out/sipp-$1 calls=$(( $1 * T )) uport cport upid
    mkdir -p "$d"
    echo "$r" > "$d/rate"
    uport=$(free_port)
    cport=$(free_port)
    (cd "$d" && /usr/bin/time -f '%U %S %M %e %w %c' -o reg.time taskset -c "$CLIENT_CPU" sipp \
        -sf "$root/deploy/sipp/uas-hold-register.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 -p "$uport" \
        -au sipp-uas -ap callstorm -m 1 -timeout 10s -timeout_error -nostdin > reg.out 2>&1) \
        || { sipp_held="did not hold: the UAS did not register (see $d/reg.out)"
             echo "  SIPp $r calls/s: $sipp_held"; return 0; }
    (cd "$d" && exec /usr/bin/time -f '%U %S %M %e %w %c' -o uas.time taskset -c "$CLIENT_CPU" sipp \
        -sf "$root/deploy/sipp/uas-hold.xml" -i 127.0.0.1 -p "$uport" -m "$calls" -timeout "$(( T + 60 ))s" \
        -nostdin -trace_stat -stf uas-stat.csv -fd 1 > uas.out 2>&1) & upid=$!; pids+=("$upid")
    sleep 0.5
    (cd "$d" && /usr/bin/time -f '%U %S %M %e %w %c' -o uac.time taskset -c "$CLIENT_CPU" sipp \
        -sf "$root/deploy/sipp/uac-hold.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 -p "$cport" \
        -m "$calls" -r "$r" -timeout "$(( T + 60 ))s" -timeout_error -nostdin -trace_stat -stf uac-stat.csv -fd 1 \
        -trace_rtt -trace_err -error_file uac-errors.log > uac.out 2>&1) || true
    # The UAS ends by itself after its calls; one whose calls failed on the way is stopped after 5 s.
    wait_exit "$upid" 5 || stop_timed "$upid"
    sipp_held=$(python3 scripts/bench_results_sip.py held-sipp "$d" "$T")
    echo "  SIPp planned $r calls/s: $sipp_held"
}

# MARK: - callstorm: the same call, both ends callstorm devices at the same Kamailio
# cs_run NAME RATE SCENARIO: files in $out/NAME{,.yaml,.time,.rate,.log}; sets `held` to its verdict line.
cs_run() {
    local name=$1 r=$2
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s/127.0.0.1:2197/127.0.0.1:$gport/" \
        -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $r/s, for: ${T}s|" \
        -e "s/^devices: [0-9]*/devices: $(( r * 3 > 50 ? r * 3 : 50 ))/" \
        "Benchmarks/scenarios/$3" > "$out/$name.yaml"
    echo "$r" > "$out/$name.rate"
    /usr/bin/time -f '%U %S %M %e %w %c' -o "$out/$name.time" taskset -c "$CLIENT_CPU" \
        "$bin" run "$out/$name.yaml" --workers 1 --out "$out/$name" --quiet > "$out/$name.log" 2>&1 || true
    held=$(python3 scripts/bench_results_sip.py held-callstorm "$out" "$name" "$T")
    echo "  callstorm planned $r calls/s ($name): $held"
}

# A side that did not hold a rung runs no higher one (its held rate is known); the ladder ends when neither holds.
k=0
held=held
sipp_held=held
for r in $RATES; do
    k=$(( k + 1 ))
    echo "rung $k: $r calls/s for $T s"
    run_sipp=$([[ $sipp_held == held* ]] && echo 1 || true)
    run_cs=$([[ $held == held* ]] && echo 1 || true)
    [ -n "$run_sipp$run_cs" ] || { echo "  neither side held the rung below: the ladder stops"; break; }
    if [ $(( k % 2 )) -eq 1 ]; then
        [ -z "$run_sipp" ] || sipp_run "$r"
        [ -z "$run_cs" ] || cs_run "cs-$r" "$r" sip-hold.yaml
    else
        [ -z "$run_cs" ] || cs_run "cs-$r" "$r" sip-hold.yaml
        [ -z "$run_sipp" ] || sipp_run "$r"
    fi
done

# MARK: - the push wake-up path at callstorm's held rate
wake_rate=$(python3 scripts/bench_results_sip.py held-rate "$out" "$T")
echo "push wake-up path at $wake_rate calls/s (SIPp's highest held rung, else callstorm's, else the lowest)"
cs_run "wake-$wake_rate" "$wake_rate" sip-hold-wake.yaml

# Kamailio by PID: SIGTERM makes its main process end its workers; past 10 s, SIGKILL to it and to each worker.
workers=$(cat "/proc/$kpid/task/$kpid/children" 2>/dev/null || true)
kill "$kpid" 2>/dev/null || true
wait_exit "$kpid" 10 || { for pid in "$kpid" $workers; do kill -9 "$pid" 2>/dev/null || true; done; }
echo "$(date +%s%3N)" >> "$out/span-sip"
if [ -n "$results" ]; then
    python3 scripts/bench_results_sip.py report "$1" "$results" "$(date -u +%Y-%m-%d)"
fi
