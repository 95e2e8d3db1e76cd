#!/usr/bin/env bash
# Instructions per push: `callstorm gateway` and nghttpd under valgrind's callgrind, each answering the same
# h2load requests (h2c) after a warm-up, counters zeroed in between. Instruction counts do not depend on what
# else the machine runs, so this ratio stays meaningful when the timed h2load rounds are drowned by a busy
# machine. Writes JSON to $1. Knobs: BENCH_CALLGRIND_REQUESTS (default 5000).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
BIN=${CALLSTORM_BIN:-.build/release/callstorm}
N=${BENCH_CALLGRIND_REQUESTS:-5000}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
    for _ in $(seq 1 600); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing listens on port $1" >&2
    return 1
}
token=$(printf '0a1b%.0s' $(seq 1 16))
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$work/key.p8"
openssl ec -in "$work/key.p8" -pubout -out "$work/pub.pem" 2>/dev/null
jwt=$(python3 - "$work/key.p8" <<'PY'
import sys, time, jwt
print(jwt.encode({"iss": "BENCHTEAM1", "iat": int(time.time())}, open(sys.argv[1]).read(), algorithm="ES256",
                 headers={"kid": "BENCHKEY01"}))
PY
)
printf '{"uuid":"5f0c4a1e-1d2b-4c3d-9e8f-a1b2c3d4e5f6","handle":{"kind":"generic","value":"alice","displayName":"Alice"},"capabilities":["video","merging"],"sentAt":1800000000000}' \
    > "$work/payload.json"
mkdir -p "$work/htdocs/3/device" && : > "$work/htdocs/3/device/$token"
# valgrind cannot read the Swift binary's DWARF; a copy without debug info keeps the symbols it needs.
objcopy --strip-debug "$BIN" "$work/callstorm"
gw=$(free_port); ng=$(free_port)
valgrind --tool=callgrind --callgrind-out-file="$work/gw.out" "$work/callstorm" gateway --listen "127.0.0.1:$gw" \
    --quiet --keys "BENCHKEY01=$work/pub.pem" --team BENCHTEAM1 >"$work/gw.log" 2>&1 & gw_pid=$!; pids+=($gw_pid)
valgrind --tool=callgrind --callgrind-out-file="$work/ng.out" nghttpd -n 1 --no-tls -d "$work/htdocs" "$ng" \
    >"$work/ng.log" 2>&1 & ng_pid=$!; pids+=($ng_pid)
wait_port "$gw"; wait_port "$ng"
load() {  # load PORT REQUESTS: h2load, 10 connections × 10 streams, one verified token per connection
    h2load -n "$2" -c 10 -m 10 -t 1 -d "$work/payload.json" -H "authorization: bearer $jwt" \
        -H "apns-push-type: voip" -H "apns-topic: com.example.callstorm.voip" -H "apns-priority: 10" \
        -H "apns-expiration: 0" "http://127.0.0.1:$1/3/device/$token" | sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p'
}
for pair in "$gw $gw_pid" "$ng $ng_pid"; do
    set -- $pair
    load "$1" 500 >/dev/null  # warm-up: connections, caches, the token verified once per connection
    callgrind_control -z "$2" >/dev/null
done
gw_ok=$(load "$gw" "$N"); callgrind_control -d "$gw_pid" >/dev/null
ng_ok=$(load "$ng" "$N"); callgrind_control -d "$ng_pid" >/dev/null
sleep 2
total() {  # the instruction total of the newest dump of $1
    local f
    f=$(ls -t "$1".* 2>/dev/null | head -1)
    callgrind_annotate "$f" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,
}
gw_ir=$(total "$work/gw.out"); ng_ir=$(total "$work/ng.out")
echo "callgrind: gateway $gw_ir instructions for $gw_ok pushes, nghttpd $ng_ir for $ng_ok"
cat > "$out" <<JSON
{"requests": $N, "gateway_2xx": ${gw_ok:-0}, "nghttpd_2xx": ${ng_ok:-0},
 "gateway_instructions": ${gw_ir:-0}, "nghttpd_instructions": ${ng_ir:-0},
 "client": "h2load -n $N -c 10 -m 10 -t 1 (after 500 warm-up requests on new connections, counters zeroed)",
 "gateway_command": "valgrind --tool=callgrind callstorm gateway --listen 127.0.0.1:PORT --quiet --keys KEYID=pub.pem --team TEAM",
 "nghttpd_command": "valgrind --tool=callgrind nghttpd -n 1 --no-tls -d htdocs PORT"}
JSON
