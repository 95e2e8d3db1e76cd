#!/usr/bin/env bash
# Push gateway throughput: h2load (nghttp2-client) against `callstorm gateway` and, in the same run, against
# nghttpd (nghttp2-server) answering the same request from a static file — the ceiling. Both servers get one
# core (taskset -c 1), h2load the other (taskset -c 0). Prints the figures and writes them to
# Benchmarks/results/gateway-<date>.md, or, with BENCH_JSON=FILE (as `make bench` calls it), to FILE as JSON.
#
# Two more rows (issue 17) use curl as the client, since h2load can neither present a client certificate nor
# go through a proxy: certificate auth over TLS (gateway vs nghttpd -V, both asked for the certificate), and
# certificate auth through the gateway's CONNECT port (`curl --proxy`) vs nghttpd direct (nghttpd cannot CONNECT).
#
# Knobs: BENCH_DURATION (seconds per run, default 10), BENCH_CONNECTIONS (100), BENCH_STREAMS (10 per
# connection), BENCH_ROUNDS (3), CALLSTORM_BIN (default .build/release/callstorm, built when missing),
# BENCH_GATEWAY_THREADS (the gateway's event-loop threads, default 1), BENCH_CURL_REQUESTS (pushes per curl run
# of the certificate rows, default 20000), BENCH_CURL_PARALLEL (curl --parallel-max, default 100),
# BENCH_GATEWAY_AUTH=0 skips those rows.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
scripts/bench-deps.sh >/dev/null
BIN=${CALLSTORM_BIN:-.build/release/callstorm}
[ -x "$BIN" ] || swift build -c release --product callstorm
DURATION=${BENCH_DURATION:-10}
CONNS=${BENCH_CONNECTIONS:-100}
STREAMS=${BENCH_STREAMS:-10}
GW_THREADS=${BENCH_GATEWAY_THREADS:-1}
SERVER_CPU=1
CLIENT_CPU=0
[ "$(nproc)" -ge 2 ] || { SERVER_CPU=0; CLIENT_CPU=0; }

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
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "nothing listens on port $1" >&2
    return 1
}

token=$(printf '0a1b%.0s' $(seq 1 16))
key_id=BENCHKEY01
team=BENCHTEAM1
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$work/key.p8"
openssl ec -in "$work/key.p8" -pubout -out "$work/pub.pem" 2>/dev/null
jwt=$(python3 - "$work/key.p8" "$key_id" "$team" <<'PY'
import sys, time, jwt
key = open(sys.argv[1]).read()
print(jwt.encode({"iss": sys.argv[3], "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": sys.argv[2]}))
PY
)
printf '{"uuid":"5f0c4a1e-1d2b-4c3d-9e8f-a1b2c3d4e5f6","handle":{"kind":"generic","value":"alice","displayName":"Alice"},"capabilities":["video","merging"],"sentAt":1800000000000}' \
    > "$work/payload.json"
mkdir -p "$work/htdocs/3/device" && : > "$work/htdocs/3/device/$token"
headers=(-H "authorization: bearer $jwt" -H "apns-push-type: voip" -H "apns-topic: com.example.callstorm.voip"
         -H "apns-priority: 10" -H "apns-expiration: 0")

gw_tls=$(free_port); gw_h2c=$(free_port); ng_tls=$(free_port); ng_h2c=$(free_port); ng_cert=$(free_port)
taskset -c $SERVER_CPU "$BIN" gateway --listen "127.0.0.1:$gw_tls" --tls --state-dir "$work/state" --quiet \
    --threads "$GW_THREADS" --keys "$key_id=$work/pub.pem" --team "$team" >"$work/gw-tls.log" 2>&1 & pids+=($!)
wait_port "$gw_tls"
cert="$work/state/tls/server.pem"; key="$work/state/tls/server-key.pem"
taskset -c $SERVER_CPU "$BIN" gateway --listen "127.0.0.1:$gw_h2c" --quiet --threads "$GW_THREADS" \
    --keys "$key_id=$work/pub.pem" --team "$team" --state-dir "$work/state" >"$work/gw-h2c.log" 2>&1 & pids+=($!)
taskset -c $SERVER_CPU nghttpd -n 1 -d "$work/htdocs" "$ng_tls" "$key" "$cert" >/dev/null 2>&1 & pids+=($!)
taskset -c $SERVER_CPU nghttpd -n 1 --no-tls -d "$work/htdocs" "$ng_h2c" >/dev/null 2>&1 & pids+=($!)
taskset -c $SERVER_CPU nghttpd -n 1 -V -d "$work/htdocs" "$ng_cert" "$key" "$cert" >/dev/null 2>&1 & pids+=($!)
for p in "$gw_h2c" "$ng_tls" "$ng_h2c" "$ng_cert"; do wait_port "$p"; done
"$BIN" cert voip --bundle-id com.example.callstorm --state-dir "$work/state" --out "$work" >/dev/null
client_cert="$work/voip-com.example.callstorm.pem"

# Prints "<req/s> <2xx> <total>" for one h2load run.
load() {
    local out
    out=$(taskset -c $CLIENT_CPU h2load -D "$DURATION" --warm-up-time=1 -c "$CONNS" -m "$STREAMS" -t 1 \
        -d "$work/payload.json" "${headers[@]}" "$1/3/device/$token" 2>&1)
    echo "$out" > "$work/last-h2load.txt"
    local rps ok total
    rps=$(echo "$out" | sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p')
    ok=$(echo "$out" | sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p')
    total=$(echo "$out" | sed -n 's/^requests: \([0-9]*\) total.*/\1/p')
    echo "${rps:-0} ${ok:-0} ${total:-0}"
}

CURL_REQUESTS=${BENCH_CURL_REQUESTS:-20000}
CURL_PARALLEL=${BENCH_CURL_PARALLEL:-100}
cert_headers=(-H "apns-push-type: voip" -H "apns-topic: com.example.callstorm.voip" -H "apns-priority: 10"
              -H "apns-expiration: 0")
# Prints "<req/s> <2xx> <total>" for one curl run: CURL_REQUESTS pushes with the client certificate, HTTP/2
# multiplexed, at most CURL_PARALLEL at once; extra curl arguments (--proxy) after the URL.
curl_load() {
    local url=$1 cfg="$work/curl-${1//[^a-z0-9]/_}.cfg"; shift
    [ -s "$cfg" ] || awk -v n="$CURL_REQUESTS" -v u="$url" \
        'BEGIN { for (i = 0; i < n; i++) printf "url = \"%s\"\noutput = \"/dev/null\"\n", u }' > "$cfg"
    local start end codes
    start=$(date +%s.%N)
    codes=$(taskset -c $CLIENT_CPU curl -s --http2 --parallel --parallel-max "$CURL_PARALLEL" \
        --cacert "$work/state/tls/ca.pem" --cert "$client_cert" -d @"$work/payload.json" "${cert_headers[@]}" \
        -w '%{http_code}\n' "$@" -K "$cfg" || true)
    end=$(date +%s.%N)
    local ok total
    ok=$(grep -c '^200$' <<<"$codes" || true)
    total=$(grep -c . <<<"$codes" || true)
    awk -v n="$total" -v a="$start" -v b="$end" -v ok="$ok" 'BEGIN { printf "%.0f %d %d\n", n / (b - a), ok, n }'
}

echo "push gateway bench: h2load -c $CONNS -m $STREAMS -t 1 for ${DURATION}s per run; servers on CPU $SERVER_CPU"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "0" }'; }

# Rounds alternate gateway and nghttpd, so a noisy neighbour on the machine hits both alike; the table reports
# each server's median over the rounds.
ROUNDS=${BENCH_ROUNDS:-3}
declare -A samples
for round in $(seq 1 "$ROUNDS"); do
    for target in "gw_tls https://127.0.0.1:$gw_tls" "ng_tls https://127.0.0.1:$ng_tls" \
                  "gw_h2c http://127.0.0.1:$gw_h2c" "ng_h2c http://127.0.0.1:$ng_h2c"; do
        set -- $target
        read -r rps ok total < <(load "$2")
        echo "round $round $1: $rps req/s ($ok of $total 2xx)"
        samples[$1]="${samples[$1]:-} $rps"
        case $1 in
            ng_*) gw=${1/ng_/gw_}; prev=$(echo ${samples[$gw]} | awk '{ print $NF }')
                  samples[ratio_${1#ng_}]="${samples[ratio_${1#ng_}]:-} $(ratio "$prev" "$rps")" ;;
        esac
        samples[$1_ok]=$(( ${samples[$1_ok]:-0} + ok ))
        samples[$1_total]=$(( ${samples[$1_total]:-0} + total ))
    done
done
# Certificate auth, and certificate auth through CONNECT (issue 17), with curl as the client.
if [ "${BENCH_GATEWAY_AUTH:-1}" = 1 ]; then
    for round in $(seq 1 "$ROUNDS"); do
        for target in "gw_cert https://127.0.0.1:$gw_tls" "ng_cert https://127.0.0.1:$ng_cert" \
                      "gw_connect https://api.push.apple.com --proxy http://127.0.0.1:$gw_h2c" \
                      "ng_direct https://127.0.0.1:$ng_cert"; do
            set -- $target
            name=$1; url=$2; shift 2
            read -r rps ok total < <(curl_load "$url/3/device/$token" "$@")
            echo "round $round $name: $rps req/s ($ok of $total 2xx)"
            samples[$name]="${samples[$name]:-} $rps"
            case $name in
                ng_cert) prev=$(echo ${samples[gw_cert]} | awk '{ print $NF }')
                         samples[ratio_cert]="${samples[ratio_cert]:-} $(ratio "$prev" "$rps")" ;;
                ng_direct) prev=$(echo ${samples[gw_connect]} | awk '{ print $NF }')
                           samples[ratio_connect]="${samples[ratio_connect]:-} $(ratio "$prev" "$rps")" ;;
            esac
            samples[${name}_ok]=$(( ${samples[${name}_ok]:-0} + ok ))
            samples[${name}_total]=$(( ${samples[${name}_total]:-0} + total ))
        done
    done
fi
median() { echo "$@" | tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
gw_tls_rps=$(median ${samples[gw_tls]}); ng_tls_rps=$(median ${samples[ng_tls]})
gw_h2c_rps=$(median ${samples[gw_h2c]}); ng_h2c_rps=$(median ${samples[ng_h2c]})
gw_tls_ok=${samples[gw_tls_ok]}; gw_tls_total=${samples[gw_tls_total]}
gw_h2c_ok=${samples[gw_h2c_ok]}; gw_h2c_total=${samples[gw_h2c_total]}

h2load_cmd="taskset -c $CLIENT_CPU h2load -D $DURATION --warm-up-time=1 -c $CONNS -m $STREAMS -t 1 -d payload.json \
-H 'authorization: bearer <ES256 JWT>' -H 'apns-push-type: voip' -H 'apns-topic: com.example.callstorm.voip' \
-H 'apns-priority: 10' -H 'apns-expiration: 0' URL/3/device/<64-hex token>"
if [ -n "${BENCH_JSON:-}" ]; then
    list() { echo "$@" | tr -s ' ' '\n' | grep -v '^$' | paste -sd, -; }
    cat > "$BENCH_JSON" <<JSON
{"connections": $CONNS, "streams": $STREAMS, "duration_s": $DURATION, "rounds": $ROUNDS, "gateway_threads": $GW_THREADS,
 "payload_bytes": $(wc -c < "$work/payload.json"),
 "commands": {"client": "$(echo "$h2load_cmd" | tr -d '\\' | tr -s ' ' | sed 's/"/\\"/g')",
   "gateway_tls": "taskset -c $SERVER_CPU callstorm gateway --listen 127.0.0.1:PORT --tls --quiet --threads $GW_THREADS --keys KEYID=pub.pem --team TEAM",
   "gateway_h2c": "taskset -c $SERVER_CPU callstorm gateway --listen 127.0.0.1:PORT --quiet --threads $GW_THREADS --keys KEYID=pub.pem --team TEAM",
   "nghttpd_tls": "taskset -c $SERVER_CPU nghttpd -n 1 -d htdocs PORT server-key.pem server.pem",
   "nghttpd_h2c": "taskset -c $SERVER_CPU nghttpd -n 1 --no-tls -d htdocs PORT",
   "curl": "taskset -c $CLIENT_CPU curl -s --http2 --parallel --parallel-max $CURL_PARALLEL --cacert ca.pem --cert voip.pem -d @payload.json (VoIP headers, no authorization) -K <$CURL_REQUESTS urls>",
   "gateway_cert": "the TLS gateway above (client certificates asked for from its local CA)",
   "gateway_connect": "the h2c gateway above, reached with curl --proxy http://127.0.0.1:PORT https://api.push.apple.com/3/device/<token>",
   "nghttpd_cert": "taskset -c $SERVER_CPU nghttpd -n 1 -V -d htdocs PORT server-key.pem server.pem"},
 "gw_tls": [$(list ${samples[gw_tls]})], "ng_tls": [$(list ${samples[ng_tls]})],
 "gw_h2c": [$(list ${samples[gw_h2c]})], "ng_h2c": [$(list ${samples[ng_h2c]})],
 "ratio_tls": [$(list ${samples[ratio_tls]})], "ratio_h2c": [$(list ${samples[ratio_h2c]})],
 "gw_tls_2xx": $gw_tls_ok, "gw_tls_total": $gw_tls_total, "gw_h2c_2xx": $gw_h2c_ok, "gw_h2c_total": $gw_h2c_total,
 "gw_cert": [$(list ${samples[gw_cert]:-})], "ng_cert": [$(list ${samples[ng_cert]:-})],
 "gw_connect": [$(list ${samples[gw_connect]:-})], "ng_direct": [$(list ${samples[ng_direct]:-})],
 "ratio_cert": [$(list ${samples[ratio_cert]:-})], "ratio_connect": [$(list ${samples[ratio_connect]:-})],
 "gw_cert_2xx": ${samples[gw_cert_ok]:-0}, "gw_cert_total": ${samples[gw_cert_total]:-0},
 "gw_connect_2xx": ${samples[gw_connect_ok]:-0}, "gw_connect_total": ${samples[gw_connect_total]:-0}}
JSON
    echo "written: $BENCH_JSON"
    exit 0
fi

stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
report="Benchmarks/results/gateway-$stamp.md"
mkdir -p Benchmarks/results
{
    echo "# Push gateway throughput, $stamp"
    echo
    echo "h2load -c $CONNS -m $STREAMS -t 1, ${DURATION}s after 1s warm-up, median of $ROUNDS alternating rounds;"
    echo "each server pinned to one core, h2load"
    echo "to another. Request: POST /3/device/<token>, VoIP headers, ES256 JWT (verified by the gateway once per"
    echo "connection), $(wc -c < "$work/payload.json")-byte payload. nghttpd answers the same request with an empty"
    echo "static file (200) — the ceiling. Machine: $(nproc) cores, $(uname -r)."
    echo
    echo "| transport | callstorm gateway req/s | nghttpd req/s | ratio | gateway 2xx / total (all rounds) |"
    echo "| --- | ---: | ---: | ---: | --- |"
    echo "| TLS (ALPN h2) | $gw_tls_rps | $ng_tls_rps | $(median ${samples[ratio_tls]}) | $gw_tls_ok / $gw_tls_total |"
    echo "| h2c | $gw_h2c_rps | $ng_h2c_rps | $(median ${samples[ratio_h2c]}) | $gw_h2c_ok / $gw_h2c_total |"
    if [ -n "${samples[gw_cert]:-}" ]; then
        echo "| TLS, client certificate (curl) | $(median ${samples[gw_cert]}) | $(median ${samples[ng_cert]}) (-V) |" \
             "$(median ${samples[ratio_cert]}) | ${samples[gw_cert_ok]} / ${samples[gw_cert_total]} |"
        echo "| CONNECT + client certificate (curl --proxy) | $(median ${samples[gw_connect]}) |" \
             "$(median ${samples[ng_direct]}) (direct, -V) | $(median ${samples[ratio_connect]}) |" \
             "${samples[gw_connect_ok]} / ${samples[gw_connect_total]} |"
    fi
    echo
    echo "Ratio: median over rounds of (gateway req/s ÷ nghttpd req/s measured right after it), which is steadier"
    echo "than the ratio of medians on a shared machine. Per-round ratios, TLS:${samples[ratio_tls]}; h2c:${samples[ratio_h2c]}."
    echo
    if [ -n "${samples[gw_cert]:-}" ]; then
        echo "The certificate rows use curl ($CURL_REQUESTS pushes per run, HTTP/2, --parallel-max $CURL_PARALLEL,"
        echo "no JWT): h2load can neither present a client certificate nor use a proxy. nghttpd cannot answer"
        echo "CONNECT, so the CONNECT row's peer is nghttpd reached directly with the same certificate."
        echo
    fi
    echo "Goal: ratio ≥ 0.50 (issue 3, acceptance 3)."
} | tee "$report"
echo "written: $report"
