# Sourced by the bench sections that start their own Kamailio (scripts/bench-sip.sh, scripts/bench-media.sh,
# scripts/bench-sip-transports.sh): their common start (bench_section_start) and helpers, in one place. Each caller
# keeps its own `pids` array (cleanup below ends what it lists) and sets `out` (its files' directory) and `bin`.
# The one-off measurement scripts (bench-sip-instructions.sh, bench-sip-wake-instructions.sh,
# bench-media-instructions.sh, perf-syscalls.sh) source it for kamailio_scratch.

# SIP_SOCKETS=device|shared: which scenario the hold call runs from, per-device UDP sockets (sip-hold.yaml, the
# default) or one shared socket per worker (sip-hold-shared.yaml; docs/SIP.md, "The shared-socket mode"). Read by
# bench-sip.sh, bench-sip-instructions.sh, perf-syscalls.sh (sip) and sip-cache-sim.sh.
case ${SIP_SOCKETS:-device} in
    device) sip_hold=sip-hold.yaml ;;
    shared) sip_hold=sip-hold-shared.yaml ;;
    *) echo "SIP_SOCKETS is device or shared, not '$SIP_SOCKETS'" >&2; exit 2 ;;
esac

# bench_section_start NAME SPAN LOADFILE TOOL...: the start every such section shares. Client and server cores
# (SERVER_CPU, CLIENT_CPU; one core: both 0), ROUNDS (BENCH_ROUNDS, 2 at most); stops when a TOOL or callstorm's
# binary is missing; lifts the open-file limit (a device holds a socket); empties `out`; ends the section's
# processes on every way out (cleanup); samples the machine's load with the section's own processes taken out; and
# notes when it started, as its own suite for scripts/bench_results_load.py's rule (bench.sh judges it otherwise):
# `suite-starts`, `span-SPAN` (its end appended by the caller) and the load average in LOADFILE.
bench_section_start() {
    local name=$1 span=$2 loadfile=$3 tool
    shift 3
    SERVER_CPU=${SERVER_CPU:-1}
    CLIENT_CPU=${CLIENT_CPU:-0}
    [ "$(nproc)" -ge 2 ] || { SERVER_CPU=0; CLIENT_CPU=0; }
    ROUNDS=${BENCH_ROUNDS:-2}
    [ "$ROUNDS" -le 2 ] || ROUNDS=2
    for tool in "$@"; do
        command -v "$tool" >/dev/null || { echo "$name: $tool is missing (scripts/test-deps.sh)" >&2; exit 1; }
    done
    [ -x "$bin" ] || { echo "$name: no callstorm binary at $bin (swift build -c release)" >&2; exit 1; }
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    rm -rf "$out" && mkdir -p "$out"
    trap cleanup EXIT
    cat /proc/loadavg > "$out/$loadfile"
    python3 scripts/bench-load-sampler.py --tree $$ "$out/load-samples" & pids+=($!)
    echo "$(date +%s%3N) $(cut -d' ' -f1 /proc/loadavg)" > "$out/suite-starts"
    echo "$(date +%s%3N)" > "$out/span-$span"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# cleanup: on every way out, each process the section started, and the program each GNU time wrapper runs, by PID.
cleanup() {
    for pid in "${pids[@]}"; do
        kill $(cat "/proc/$pid/task/$pid/children" 2>/dev/null) "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}

# forget PID: takes an ended process out of `pids`, so cleanup never signals a PID the system gave to another since.
forget() {
    local kept=() pid
    for pid in "${pids[@]}"; do [ "$pid" = "$1" ] || kept+=("$pid"); done
    pids=("${kept[@]}")
}

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

# Kamailio's allocator for its shared and private memory, for every Kamailio a bench or measurement script starts
# (KamailioOptions.defaultMemoryManager, which callstorm's own launcher uses): its default, qm, walks its size
# buckets one by one for a free fragment, 61 % of the instructions of a call through the bench's configuration
# under callgrind; TLSF halves them, and the CPU time by ~12 % (docs/SIP.md, "Kamailio's own cost per call"). Not
# with the tls module: qm catches Debian 5.6.3's double free there (KamailioOptions says why).
kamailio_memory=(-x tlsf -X tlsf)
# kamailio_procs: the processes of the bench's Kamailio on its one server core (bench-sip.sh): one SIP worker (`-n 1`
# overrides kamailio.cfg's children=2) and two push task workers (PUSH_WORKERS; the configuration's default of 4
# stays for the tests and for a Kamailio with cores to spare). On one core the processes only take turns: fewer of
# them is fewer switches and warmer caches for the same work. Nothing in the bench's routes waits inside a SIP
# worker (no rtpengine, DNS or database; the push waits in a task worker), so one worker loses no concurrency; two
# task workers keep a push going while the other waits for a gateway on a busy client core. The wake rung at
# 1,600/s, load average 15-19 and 3-5, not judged: Kamailio 0.40-0.50 ms of CPU per planned wake call against
# 0.46-0.55 ms with the configuration's 2 + 4, one pair of eight the other way (docs/SIP.md, 2026-12-07, helper
# s54-wake); the same instructions. KAMAILIO_PROCS="" leaves the configuration's counts. bench-sip.sh's wake rung
# starts its own with WAKE_KAMAILIO_PROCS (-n 2 -A PUSH_WORKERS=8): two task workers did not carry 1,600 pushes a
# second (docs/SIP.md, "The wake-up path at rate", 2026-12-08).
read -r -a kamailio_procs <<< "${KAMAILIO_PROCS--n 1 -A PUSH_WORKERS=2}"

# kamailio_modules: the directory of Debian's Kamailio modules.
kamailio_modules() {
    dirname "$(ls /usr/lib/*/kamailio/modules/tm.so /usr/lib/kamailio/modules/tm.so 2>/dev/null | head -1)"
}

# kamailio_scratch SHM_MB [ARG...]: one native Kamailio for a one-off measurement (the callgrind and perf scripts),
# its files in the caller's scratch directory `d` (kamailio/, kamailio.log), on a free port (`kport`, UDP and TCP;
# never the caller's `gport`) with ARGs added; `kpid` its PID. An EXIT trap stops it by PID and removes `d`, or
# prints `d` when KEEP is set. Returns once it answers OPTIONS (100 tries, 600 under KAMAILIO_WRAP: kamailio_ready;
# else the script exits 1). Its allocator is kamailio_memory's (an ARG `-x qm -X qm` after it wins). KAMAILIO_CFG
# names another configuration; KAMAILIO_WRAP a command it runs under (valgrind).
kamailio_scratch() {
    local shm=$1 wrap; shift
    read -r -a wrap <<< "${KAMAILIO_WRAP:-}"
    kport=$(free_port)
    while [ "$kport" = "${gport:-}" ]; do kport=$(free_port); done
    mkdir -p "$d/kamailio"
    "${wrap[@]}" /usr/sbin/kamailio -f "${KAMAILIO_CFG:-$root/deploy/kamailio/kamailio.cfg}" -DD -E \
        -L "$(kamailio_modules)" -Y "$d/kamailio" -l "udp:127.0.0.1:$kport" -l "tcp:127.0.0.1:$kport" -m "$shm" -M 8 \
        "${kamailio_memory[@]}" "$@" > "$d/kamailio.log" 2>&1 & kpid=$!
    trap 'kill $kpid 2>/dev/null; wait $kpid 2>/dev/null; [ -n "${KEEP:-}" ] && echo "$d" || rm -rf "$d"' EXIT
    kamailio_ready "$kport" "$([ ${#wrap[@]} -gt 0 ] && echo 600 || echo 100)" \
        || { echo "Kamailio did not answer; see $d/kamailio.log" >&2; exit 1; }
}

# kamailio_ready PORT [TRIES]: waits until a Kamailio answers OPTIONS on 127.0.0.1:PORT over UDP (TRIES tries of
# 0.1 to 0.3 s each; 100 by default).
kamailio_ready() {
    python3 - "$1" "${2:-100}" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(0.2)
for attempt in range(int(sys.argv[2])):
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
}

# kamailio_stop PID: SIGTERM makes its main process end its workers; past 10 s, SIGKILL to it and to each worker.
kamailio_stop() {
    local workers
    workers=$(cat "/proc/$1/task/$1/children" 2>/dev/null || true)
    kill "$1" 2>/dev/null || true
    wait_exit "$1" 10 || { for pid in "$1" $workers; do kill -9 "$pid" 2>/dev/null || true; done; }
}

# push_keep URL JWT [TOPIC]: sets the array push_keep to the -A defines of kamailio.cfg's kept push connection
# (PUSH_KEEP, PUSH_KEEP_TOPIC; route[PUSHKEPT]): each push task worker keeps one connection to the gateway at URL
# for the VoIP pushes to TOPIC (the scenarios' default bundle's), the constant header lines, the provider token
# JWT among them, carried by the connection. Empty with PUSH_KEEP=0 (a connection per push, as before 2026-12-07).
push_keep() {
    local topic=${3:-com.example.callstorm.voip}
    local lines="authorization: bearer $2\\r\\napns-push-type: voip\\r\\napns-topic: $topic\\r\\napns-priority: 10"
    push_keep=()
    [ "${PUSH_KEEP:-1}" = 0 ] && return 0
    push_keep=(-A "PUSH_KEEP=\"push=>$1;useragent=\\\"callstorm\\r\\n$lines\\\"\"" -A "PUSH_KEEP_TOPIC=\"$topic\"")
}

# push_jwt KEYFILE: an ES256 provider token for Kamailio's pushes (callstorm's gateway holds no key here, so any
# well-formed token under an hour old passes); writes a fresh P-256 key to KEYFILE.
push_jwt() {
    openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$1"
    python3 - "$1" <<'PY'
import sys, time, jwt
print(jwt.encode({"iss": "BENCHTEAM1", "iat": int(time.time())}, open(sys.argv[1]).read(), algorithm="ES256",
                 headers={"kid": "BENCHKEY01"}))
PY
}
