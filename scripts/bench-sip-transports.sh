#!/usr/bin/env bash
# `make bench`, sections sip-tls and sip-ws (issue 35, acceptance 5): callstorm's SIP devices over TLS (RFC 3261
# §26) or over WebSocket (RFC 7118) beside the same devices over TCP, in the same run, through one Kamailio
# (deploy/kamailio/kamailio.cfg with WITH_PUSH and, for tls, WITH_TLS and a certificate a throwaway CA of the
# section's own issued for 127.0.0.1; for ws, WITH_WEBSOCKET and a ws listener) on the server core, every client on
# the client core, measured by GNU time. Two calls, each over both transports per round, the order rotated by
# round: the hold call (Benchmarks/scenarios/sip-hold.yaml, devices awake: one connection each, kept) and the push
# wake-up path (sip-hold-wake.yaml: devices asleep, so every wake opens a connection, a TLS handshake or an HTTP
# Upgrade, and a REGISTER, the parts wake.connect / wake.handshake / wake.register of push_to_register). SIPp is no
# peer here: Debian's SIPp 3.6.1 has no TLS (-t l1 is not built in) and no WebSocket, so the row compares with
# callstorm over TCP. bench_results_siptransports.py makes the rows.
#
# usage: scripts/bench-sip-transports.sh WORK tls|ws  (writes WORK/sip-tls or WORK/sip-ws)
# env: CALLSTORM_BIN, SERVER_CPU (1), CLIENT_CPU (0), BENCH_ROUNDS (2 at most here), SIPT_RATE (100),
# SIPT_SECONDS (10). Every run stops by itself (its plan, then its drain).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:?usage: scripts/bench-sip-transports.sh WORK tls|ws}
transport=${2:?usage: scripts/bench-sip-transports.sh WORK tls|ws}
case $transport in tls|ws) ;; *) echo "bench-sip-transports: transport tls or ws, not $transport" >&2; exit 2;; esac
out=$work/sip-$transport
bin=${CALLSTORM_BIN:-$PWD/.build/release/callstorm}
RATE=${SIPT_RATE:-100}
T=${SIPT_SECONDS:-10}
pids=()
source scripts/bench-sip-lib.sh
bench_section_start bench-sip-transports "sip-$transport" "loadavg-sip-$transport" /usr/sbin/kamailio /usr/bin/time \
    openssl
printf '%s %s %s\n' "$RATE" "$T" "$transport" > "$out/plan"

# MARK: - one Kamailio: UDP/TCP on kport, and a TLS or WebSocket listener on xport; the push route to gport
kport=$(free_port)
xport=$(free_port)
gport=$(free_port)
while [ "$xport" = "$kport" ]; do xport=$(free_port); done
while [ "$gport" = "$kport" ] || [ "$gport" = "$xport" ]; do gport=$(free_port); done
jwt=$(push_jwt "$out/key.p8")
defines=(-A WITH_PUSH -A "PUSH_URL=\"http://127.0.0.1:$gport\"" -A "PUSH_JWT=\"$jwt\"")
workers=()
ca_line=""
if [ "$transport" = tls ]; then
    # A CA of the section's own and a server certificate for 127.0.0.1 (the name the devices verify).
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=callstorm-bench-ca \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -keyout "$out/ca.key" -out "$out/ca.pem" 2>/dev/null
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 \
        -keyout "$out/server.key" -out "$out/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > "$out/server.ext"
    openssl x509 -req -in "$out/server.csr" -CA "$out/ca.pem" -CAkey "$out/ca.key" -CAcreateserial -days 2 \
        -extfile "$out/server.ext" -out "$out/server.pem" 2>/dev/null
    # The tls module's file as callstorm writes it for the Kamailio a run starts (KamailioListeners).
    cat > "$out/tls.cfg" <<TLS
[server:default]
method = TLSv1.2+
verify_certificate = no
require_certificate = no
certificate = $out/server.pem
private_key = $out/server.key

[client:default]
method = TLSv1.2+
verify_certificate = no
require_certificate = no
TLS
    defines+=(-A WITH_TLS -A "TLS_CONFIG=\"$out/tls.cfg\"")
    # One TCP/TLS worker (-N 1), for TCP and TLS alike: Debian's Kamailio 5.6.3 tls module frees OpenSSL 3's error
    # state twice under hundreds of concurrent handshakes with two or more (qm_free from ERR_clear_error in
    # tls_accept; 2026-12-06 it killed a worker at the 1,000 devices' first REGISTERs), as the storm found
    # (docs/SIP.md; the cure, tls_threads_mode, came after 5.6.3).
    workers=(-N 1)
    # And qm, Kamailio's default allocator, which catches that double free and logs it (TLSF would not).
    memory=()
    listen=(-l "tls:127.0.0.1:$xport")
    ca_line=", ca: \"$out/ca.pem\""
else
    defines+=(-A WITH_WEBSOCKET)
    memory=("${kamailio_memory[@]}")
    listen=(-l "tcp:127.0.0.1:$xport")
fi
mkdir -p "$out/kamailio"
taskset -c "$SERVER_CPU" /usr/sbin/kamailio -f deploy/kamailio/kamailio.cfg -DD -E -L "$(kamailio_modules)" \
    -Y "$out/kamailio" -l "udp:127.0.0.1:$kport" -l "tcp:127.0.0.1:$kport" "${listen[@]}" -m 2048 -M 8 \
    "${memory[@]}" "${workers[@]}" "${defines[@]}" > "$out/kamailio.log" 2>&1 & kpid=$!; pids+=("$kpid")
kamailio_ready "$kport" || { echo "bench-sip-transports: Kamailio did not answer; see $out/kamailio.log" >&2; exit 1; }
echo "Kamailio pid $kpid: udp/tcp 127.0.0.1:$kport, $transport 127.0.0.1:$xport (core $SERVER_CPU); pushes to" \
     "127.0.0.1:$gport; $RATE calls/s for $T s per run"

# cs_run NAME SCENARIO TRANSPORT: one run (tcp to kport, tls/ws to xport).
cs_run() {
    local name=$1 port=$kport extra="" tpid
    [ "$3" = tcp ] || { port=$xport; extra=$ca_line; }
    sed -e "s|registrar: \"127.0.0.1:5060\" }|registrar: \"127.0.0.1:$port\"$extra }|" \
        -e "s/127.0.0.1:2197/127.0.0.1:$gport/" -e "s/transport: udp/transport: $3/" \
        -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $RATE/s, for: ${T}s|" \
        -e "s/^devices: [0-9]*/devices: $(( RATE * 3 > 50 ? RATE * 3 : 50 ))/" \
        "Benchmarks/scenarios/$2" > "$out/$name.yaml"
    echo "$RATE" > "$out/$name.rate"
    # In the background with its PID noted, so a stopped section stops it too (cleanup).
    /usr/bin/time -f '%U %S %M %e %w %c' -o "$out/$name.time" taskset -c "$CLIENT_CPU" \
        "$bin" run "$out/$name.yaml" --workers 1 --out "$out/$name" --quiet > "$out/$name.log" 2>&1 & tpid=$!
    pids+=("$tpid")
    wait "$tpid" 2>/dev/null || true
    forget "$tpid"
    echo "  $name: $(python3 scripts/bench_results_siptransports.py one "$out" "$name")"
}

for round in $(seq 1 "$ROUNDS"); do
    order=("tcp" "$transport")
    [ $(( round % 2 )) -eq 1 ] || order=("$transport" "tcp")
    for t in "${order[@]}"; do cs_run "hold-$t-$round" sip-hold.yaml "$t"; done
    for t in "${order[@]}"; do cs_run "wake-$t-$round" sip-hold-wake.yaml "$t"; done
done
kamailio_stop "$kpid"
forget "$kpid"
echo "$(date +%s%3N)" >> "$out/span-sip-$transport"
python3 scripts/bench_results_siptransports.py summary "$out"
