#!/usr/bin/env bash
# `make bench`, section media (issue 34, acceptance 5): RTP on the same call, callstorm vs SIPp 3.6.1, through one
# Kamailio routing every call's media through one rtpengine (-A WITH_RTPENGINE, userspace forwarding), both on the
# server core for the whole section, every client on the client core and measured by GNU time (user + system of
# each client process: SIPp's UAC, UAS and its one REGISTER run; callstorm's whole process).
# The call (Benchmarks/scenarios/sip-media.yaml; SIPp: Benchmarks/scenarios/sipp-uac-media.xml and
# sipp-uas-media.xml): INVITE, 100, 180, 100 ms, 200, ACK, MEDIA_TALK_MS of PCMU at 20 ms both ways (each end
# sends from its answer to the relay's address in the other side's SDP), BYE, 200; MEDIA_RATE calls/s for
# MEDIA_SECONDS, so about 2 × rate × talk streams at once. Debian's SIPp has rtp_stream (a raw PCMU file, looped,
# payload 0) and pcap play; it only sends (what reaches it is not read), while callstorm's ends also receive and
# measure (loss, jitter, MOS, one-way audio). Packets: the relay's own count of packets it relayed during the run
# (rtpengine's ng `statistics`, totalstatistics.relayedpackets, read before and after each run), the same yardstick
# for both; callstorm's own media.packets_sent beside it.
# Each round runs, in a rotated order: SIPp; callstorm at media.share 100 %; at 10 %; without media (the section
# removed). bench_results_media.py makes the rows: streams per client core and packets per client CPU-second
# (callstorm vs SIPp), and calls per client CPU-second at 100 % and 10 % against no media (what media costs a call).
#
# usage: scripts/bench-media.sh WORK  (writes WORK/media/*)
# env: CALLSTORM_BIN, SERVER_CPU (1), CLIENT_CPU (0), BENCH_ROUNDS (2 at most here), MEDIA_RATE (50),
# MEDIA_SECONDS (10), MEDIA_TALK_MS (4000), MEDIA_LADDER ("100 200 400": callstorm alone at media.share 100 %,
# climbing while its send lag p99 stays ≤ 1 ms, for the streams it holds per client core; "" skips it). Every run stops by itself (callstorm: its plan and drain; SIPp: -m
# calls and -timeout); a SIPp UAS whose calls failed on the way is stopped 10 s after its UAC ended.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=${1:?usage: scripts/bench-media.sh WORK}
out=$work/media
bin=${CALLSTORM_BIN:-$PWD/.build/release/callstorm}
RATE=${MEDIA_RATE:-50}
T=${MEDIA_SECONDS:-10}
TALK=${MEDIA_TALK_MS:-4000}
LADDER=${MEDIA_LADDER-"100 200 400"}
pids=()
source scripts/bench-sip-lib.sh
bench_section_start bench-media media loadavg-media sipp /usr/sbin/kamailio /usr/bin/rtpengine /usr/bin/time
printf '%s %s %s\n' "$RATE" "$T" "$TALK" > "$out/plan"

# MARK: - rtpengine, then Kamailio routing media through it, both on the server core
ngport=$(free_port)
# Media ports: 4 per call the relay holds at once (RTP and RTCP of two parties), rate × (talk + 2 s) calls at the
# highest rate run, twice over, at least 2,000: from an even base well below the kernel's ephemeral ports.
top=$RATE
for r in $LADDER; do [ "$r" -le "$top" ] || top=$r; done
span=$(( top * (TALK / 1000 + 2) * 8 > 2000 ? top * (TALK / 1000 + 2) * 8 : 2000 ))
low=$(( 10000 + (RANDOM % 40) * 100 ))
low=$(( low - low % 2 ))
# Never into the ephemeral ports (callstorm's and SIPp's own sockets): rtpengine skips a port in use, but a range
# that ends below them leaves both sides their room.
first_ephemeral=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
[ $(( low + span )) -lt "$first_ephemeral" ] || span=$(( first_ephemeral - 1 - low ))
taskset -c "$SERVER_CPU" /usr/bin/rtpengine --config-file=none --table=-1 --foreground --log-stderr \
    --interface=127.0.0.1 --listen-ng="127.0.0.1:$ngport" --port-min="$low" --port-max="$(( low + span ))" \
    --log-level=5 --delete-delay=0 --num-threads=2 > "$out/rtpengine.log" 2>&1 & rpid=$!; pids+=("$rpid")
relayed() { python3 scripts/bench_results_media.py relayed "$ngport"; }
for _ in $(seq 1 50); do relayed >/dev/null 2>&1 && break; sleep 0.2; done
relayed > /dev/null || { echo "bench-media: rtpengine did not answer; see $out/rtpengine.log" >&2; exit 1; }
kport=$(free_port)
mkdir -p "$out/kamailio"
taskset -c "$SERVER_CPU" /usr/sbin/kamailio -f deploy/kamailio/kamailio.cfg -DD -E -L "$(kamailio_modules)" \
    -Y "$out/kamailio" -l "udp:127.0.0.1:$kport" -l "tcp:127.0.0.1:$kport" -m 2048 -M 8 -A WITH_RTPENGINE \
    -A "RTPENGINE_SOCK=\"udp:127.0.0.1:$ngport\"" > "$out/kamailio.log" 2>&1 & kpid=$!; pids+=("$kpid")
kamailio_ready "$kport" || { echo "bench-media: Kamailio did not answer; see $out/kamailio.log" >&2; exit 1; }
echo "Kamailio pid $kpid on 127.0.0.1:$kport, rtpengine pid $rpid (ng $ngport, ports $low-$(( low + span ))) on" \
     "core $SERVER_CPU; $RATE calls/s for $T s, $TALK ms of audio each"
# The audio both SIPp ends loop: 1 s of raw PCMU (a 400 Hz tone; SIPp sends the bytes as they are).
python3 - "$out/bench-tone.pcmu" <<'PY'
import math, sys
def ulaw(x):
    sign = 0x80 if x < 0 else 0
    x = min(abs(x), 32635) + 132
    exp = max(0, x.bit_length() - 8)
    return ~(sign | (exp << 4) | ((x >> (exp + 3)) & 0x0F)) & 0xFF
open(sys.argv[1], "wb").write(bytes(ulaw(int(8000 * math.sin(2 * math.pi * 400 * i / 8000))) for i in range(8000)))
PY

# MARK: - SIPp: UAS registered once from its port, then UAC -> Kamailio (+ rtpengine) -> UAS
sipp_run() {
    local name=$1 d=$out/$1 calls=$(( RATE * T )) uport cport ump cmp upid cpid before
    mkdir -p "$d"
    cp "$out/bench-tone.pcmu" "$d/"
    echo "$RATE" > "$out/$name.rate"
    uport=$(free_port); cport=$(free_port); ump=$(free_port); cmp=$(free_port)
    (cd "$d" && /usr/bin/time -f '%U %S %M %e %w %c' -o reg.time taskset -c "$CLIENT_CPU" sipp \
        -sf "$root/deploy/sipp/uas-hold-register.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 -p "$uport" \
        -au sipp-uas -ap callstorm -m 1 -timeout 10s -timeout_error -nostdin > reg.out 2>&1) \
        || { echo "  $name: the SIPp UAS did not register (see $d/reg.out)"; return 0; }
    before=$(relayed)
    (cd "$d" && exec /usr/bin/time -f '%U %S %M %e %w %c' -o uas.time taskset -c "$CLIENT_CPU" sipp \
        -sf "$root/Benchmarks/scenarios/sipp-uas-media.xml" -i 127.0.0.1 -mi 127.0.0.1 -p "$uport" -mp "$ump" \
        -m "$calls" -timeout "$(( T + TALK / 1000 + 60 ))s" -nostdin -trace_stat -stf uas-stat.csv -fd 1 \
        > uas.out 2>&1) & upid=$!; pids+=("$upid")
    sleep 0.5
    # In the background with its PID noted, so a stopped section stops it too (cleanup).
    (cd "$d" && exec /usr/bin/time -f '%U %S %M %e %w %c' -o uac.time taskset -c "$CLIENT_CPU" sipp \
        -sf "$root/Benchmarks/scenarios/sipp-uac-media.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 \
        -mi 127.0.0.1 -p "$cport" -mp "$cmp" -d "$TALK" -m "$calls" -r "$RATE" \
        -timeout "$(( T + TALK / 1000 + 60 ))s" -timeout_error -nostdin -trace_stat -stf uac-stat.csv -fd 1 \
        > uac.out 2>&1) & cpid=$!; pids+=("$cpid")
    wait "$cpid" 2>/dev/null || true
    forget "$cpid"
    wait_exit "$upid" 10 || stop_timed "$upid"
    forget "$upid"
    echo "$before $(relayed)" > "$d/relayed"
    echo "  $name: $(python3 scripts/bench_results_media.py one-sipp "$out" "$name")"
}

# MARK: - callstorm: the same call, both ends callstorm devices; SHARE 100%, 10%, or "" (no media section); at
# RATE calls/s unless a third argument says otherwise
cs_run() {
    local name=$1 share=$2 r=${3:-$RATE} before rpid_cs
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $r/s, for: ${T}s|" \
        -e "s/^devices: [0-9]*/devices: $(( r * (TALK / 1000 + 1) * 3 > 50 ? r * (TALK / 1000 + 1) * 3 : 50 ))/" \
        -e "s/wait: 4000ms/wait: ${TALK}ms/" -e "s/share: 100%/share: ${share:-100%}/" \
        Benchmarks/scenarios/sip-media.yaml > "$out/$name.yaml"
    [ -n "$share" ] || sed -i '/^media:/,$d' "$out/$name.yaml"
    echo "$r" > "$out/$name.rate"
    before=$(relayed)
    /usr/bin/time -f '%U %S %M %e %w %c' -o "$out/$name.time" taskset -c "$CLIENT_CPU" \
        "$bin" run "$out/$name.yaml" --workers 1 --out "$out/$name" --quiet > "$out/$name.log" 2>&1 & rpid_cs=$!
    pids+=("$rpid_cs")
    wait "$rpid_cs" 2>/dev/null || true
    forget "$rpid_cs"
    echo "$before $(relayed)" > "$out/$name.relayed"
    echo "  $name: $(python3 scripts/bench_results_media.py one-callstorm "$out" "$name")"
}

variants=("sipp:" "cs100:100%" "cs10:10%" "cs0:")
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round"
    for i in 0 1 2 3; do
        v=${variants[$(( (i + round - 1) % 4 ))]}
        if [ "${v%%:*}" = sipp ]; then sipp_run "sipp-$round"; else cs_run "${v%%:*}-$round" "${v#*:}"; fi
    done
done

# MARK: - the streams callstorm holds: higher rates (MEDIA_LADDER) while its send lag p99 stays ≤ 1 ms
# Each rung runs only if the one below held (≥ 99 % of its calls completed, media.send_lag_max p99 ≤ 1 ms; the
# first rung below is round 1's run at MEDIA_RATE); SIPp reports no send lag, so this one has no peer.
held=$(python3 scripts/bench_results_media.py held "$out" cs100-1)
for r in $LADDER; do
    [ "$r" -gt "$RATE" ] || continue
    [ "$held" = yes ] || { echo "  ladder: the rung below did not hold, so no rung at $r calls/s"; break; }
    cs_run "ladder-$r" "100%" "$r"
    held=$(python3 scripts/bench_results_media.py held "$out" "ladder-$r")
done
kamailio_stop "$kpid"
forget "$kpid"
kill "$rpid" 2>/dev/null || true
wait_exit "$rpid" 5 || kill -9 "$rpid" 2>/dev/null || true
forget "$rpid"
echo "$(date +%s%3N)" >> "$out/span-media"
python3 scripts/bench_results_media.py summary "$out"
