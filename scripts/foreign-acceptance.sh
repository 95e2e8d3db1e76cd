#!/usr/bin/env bash
# Issue 19, acceptance 1 and 2, against ForeignCallServer (Tests/CallstormCLITests/ForeignCallServer.swift) run
# standalone, the way the tests stand it up (ForeignServerStandalone: its own process, an HTTP/2 + TLS APNs client
# with verified ES256 tokens), with the release callstorm binary:
#   1. correct mode, one run per built-in flow at 40 calls/s for 10 s of arrivals (≥ 300 calls), polling only:
#      calls completed ≥ 99 %, errors.rate < 1 %, 0 violations;
#   2. each deliberate race, its race scenario 10 full times with new seeds: found by the expected rule in ≥ 9 of
#      10, and `callstorm replay` of one repro reproducing it; correct mode 0 violations over ≥ 2,000 pairs.
# Writes $OUT/results.md (a Markdown table) and keeps every run directory under $OUT.
# Usage: scripts/foreign-acceptance.sh [OUT]   (SKIP_BUILD=1 to use the binaries already built; SECTIONS picks
# some of "flows races correct", the default all three; FLOWS and RACE_RUNS narrow a quick check)
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
OUT=${1:-Reports/foreign-acceptance-$(date -u +%Y%m%dT%H%M%SZ)}
BIN=${CALLSTORM_BIN:-$PWD/.build/release/callstorm}
TESTS=$PWD/.build/debug/callstormPackageTests.xctest
EXAMPLE=Scenarios/examples/foreign-server.yaml
FLOWS=${FLOWS:-incoming-1to1 outgoing-1to1 declined hold-resume group-call merge-unmerge group-merge}
RACE_RUNS=${RACE_RUNS:-10}
SECTIONS=" ${SECTIONS:-flows races correct} "
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
RESULTS=$OUT/results.md

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    swift build -c release --product callstorm || exit 3
    swift build --build-tests || exit 3
fi

GATEWAY_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
SERVER_PID=
SERVER_DIR=
SERVER_PORT=

stop_server() {
    if [ -n "$SERVER_PID" ]; then
        kill "$SERVER_PID" 2>/dev/null
        wait "$SERVER_PID" 2>/dev/null
        SERVER_PID=
    fi
}
trap stop_server EXIT

# start_server NAME BUGS: ForeignCallServer with BUGS (comma-separated, may be empty) in $OUT/server-NAME.
start_server() {
    stop_server
    SERVER_DIR=$OUT/server-$1
    mkdir -p "$SERVER_DIR"
    rm -f "$SERVER_DIR/port"
    FOREIGN_SERVE_DIR=$SERVER_DIR FOREIGN_GATEWAY_PORT=$GATEWAY_PORT FOREIGN_BUGS=$2 \
        "$TESTS" CallstormCLITests.ForeignServerStandalone/testServeUntilKilled >"$SERVER_DIR/log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 120); do
        [ -s "$SERVER_DIR/port" ] && break
        sleep 0.5
    done
    [ -s "$SERVER_DIR/port" ] || { echo "ForeignCallServer did not start (see $SERVER_DIR/log)" >&2; exit 3; }
    SERVER_PORT=$(cat "$SERVER_DIR/port")
}

# scenario FILE LOADPART [DEVICES]: the example pointed at this server and gateway (TLS, the server's key
# verified), with everything from its `load:` on replaced by LOADPART (and DEVICES devices instead of its 1,200).
scenario() {
    local auth="deadline: 2s, auth: { keys: { FOREIGNK01: \"$SERVER_DIR/key.pem\" }, team: FOREIGNTM1 } }"
    sed -n '/^load:/q;p' "$EXAMPLE" \
        | sed -e "s/127.0.0.1:2197/127.0.0.1:$GATEWAY_PORT/" -e "s/127.0.0.1:9000/127.0.0.1:$SERVER_PORT/" \
              -e "s|deadline: 2s, tls: false }|$auth|" -e "s/^devices: .*/devices: ${3:-1200}/" >"$1"
    printf '%s\n' "$2" >>"$1"
}

# run NAME FILE SEED: one run into $OUT/NAME; prints its figures as one line: calls started, completed,
# errors.rate, polls, violations, races, calls turned away for want of an idle device, violations by rule.
run() {
    "$BIN" run "$2" --target "http://127.0.0.1:$SERVER_PORT" --out "$OUT/$1" --seed "$3" >"$OUT/$1.log" 2>&1
    python3 - "$OUT/$1" <<'PY'
import json, sys, os
d = sys.argv[1]
s = json.load(open(os.path.join(d, "summary.json")))
c = s["counters"]
started, completed = c.get("calls.started", 0), c.get("calls.completed", 0)
rate = (s.get("ratios") or {}).get("errorsRate")
check = json.load(open(os.path.join(d, "checker.json"))) if os.path.exists(os.path.join(d, "checker.json")) else {}
rules = {}
for v in check.get("violations", []):
    rules[v["rule"]] = rules.get(v["rule"], 0) + 1
races_file = os.path.join(d, "raw", "races.json")
races = json.load(open(races_file))["races"] if os.path.exists(races_file) else 0
print(started, completed, "%.4f" % (rate or 0), c.get("observe.polls", 0), sum(rules.values()), races,
      c.get("calls.dropped.no_idle_device", 0), ",".join("%s:%d" % kv for kv in sorted(rules.items())) or "-")
PY
}

pct() { python3 -c "import sys; print('%.1f' % (100.0 * $1 / max($2, 1)))"; }

{
    echo "# Issue 19 acceptance against ForeignCallServer ($(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo
    changes=$(git diff --quiet HEAD || echo ' with local changes')
    echo "\`scripts/foreign-acceptance.sh\` at $(git rev-parse --short HEAD)$changes,"
    echo "sections:$SECTIONS; gateway TLS with verified ES256 tokens on 127.0.0.1:$GATEWAY_PORT; load average at start"
    echo "$(cut -d' ' -f1-3 /proc/loadavg). Run directories: \`$OUT\`."
} >"$RESULTS"

# Acceptance 1: one run per built-in flow, correct mode.
flows() {
    {
        echo
        echo "## 1. Every built-in flow, correct mode, 40 calls/s for 10 s, observing only by polling"
        echo
        echo "| flow | calls | completed | errors.rate | polls | violations | verdict |"
        echo "|------|------:|----------:|------------:|------:|-----------:|---------|"
    } >>"$RESULTS"
    start_server correct ""
    local seed=100 file started completed rate polls violations ok
    for flow in $FLOWS; do
        seed=$((seed + 1))
        file=$OUT/flow-$flow.yaml
        scenario "$file" "load:
  - hold: { rate: 40/s, for: 10s }
mix: { $flow: 100 }
behavior:
  answer_after: { uniform: [100ms, 300ms] }
  talk: { constant: 300ms }
drain: 20s
action_timeout: 5s"
        echo "flow $flow" >&2
        read -r started completed rate polls violations _ _ _ < <(run "flow-$flow" "$file" "$seed")
        ok=$(python3 -c "print('pass' if $started >= 300 and $completed >= 0.99 * $started and $rate < 0.01 \
and $violations == 0 else 'FAIL')")
        echo "| $flow | $started | $completed ($(pct "$completed" "$started") %) |" \
            "$(python3 -c "print('%.2f' % (100 * $rate))") % | $polls | $violations | $ok |" >>"$RESULTS"
    done
    echo "pushes the gateway refused (server's count): $(grep pushes_failed "$SERVER_DIR/stats" | cut -d' ' -f2)" \
        >>"$RESULTS"
}

# race BUG SCENARIO RULE: the scenario RACE_RUNS times against the server with BUG, then a replay of the repro
# the first run names as likeliest to replay RULE.
race() {
    start_server "$1" "$1"
    local found=0 races=0 repro="" file n rules k
    for k in $(seq 1 "$RACE_RUNS"); do
        file=$OUT/race-$1-$k.yaml
        scenario "$file" "$(cat "$SERVER_DIR/$2.flows.yaml")"
        echo "race $1 $k" >&2
        read -r _ _ _ _ _ n _ rules < <(run "race-$1-$k" "$file" "$k")
        races=$n
        case ",$rules," in *",$3:"*) found=$((found + 1)) ;; esac
        if [ -z "$repro" ]; then
            repro=$(grep -o "$3: callstorm replay [^ ]* --repeat 10" "$OUT/race-$1-$k.log" | head -1 | cut -d' ' -f4)
        fi
    done
    local replayed="no repro file"
    if [ -n "$repro" ]; then
        "$BIN" replay "$repro" --repeat 10 >"$OUT/replay-$1.log" 2>&1
        replayed="$(grep -o 'reproduced in [0-9]* of [0-9]* repetitions' "$OUT/replay-$1.log" | head -1)"
        replayed="$replayed (\`$(basename "$(dirname "$repro")")/$(basename "$repro")\`)"
    fi
    echo "| $1 | $2 | $3 | $found of $RACE_RUNS | $races | $replayed |" >>"$RESULTS"
}

races() {
    {
        echo
        echo "## 2. Races: each scenario $RACE_RUNS times (seeds 1…$RACE_RUNS), 40 races/s for 4 s"
        echo
        echo "| server mode | race scenario | expected rule | runs finding it | races per run | replay of one repro |"
        echo "|-------------|---------------|---------------|----------------:|--------------:|---------------------|"
    } >>"$RESULTS"
    race merge-lost-update merge-vs-end merge-yields-union
    race merge-accepts-finished merge-vs-end ended-conversation-never-reappears
    race split-loses-answer unmerge-vs-join final-views-agree-with-server
}

# Acceptance 2, correct mode: 1,000 races per scenario. A race call holds up to 4 devices for ~3 s (polls,
# verification), so the runs have 3,000 devices: with the example's 1,200, a third of the arrivals found no idle
# device and never ran.
correct() {
    {
        echo
        echo "## 2. Correct mode: race scenarios at 100 races/s for 10 s, 3,000 devices"
        echo
        echo "| race scenario | races planned | conflicting pairs | turned away (no idle device) | violations |"
        echo "|---------------|--------------:|------------------:|-----------------------------:|-----------:|"
    } >>"$RESULTS"
    start_server correct-races ""
    local total=0 file violations n dropped
    for name in merge-vs-end unmerge-vs-join; do
        file=$OUT/correct-$name.yaml
        scenario "$file" "$(sed 's|rate: 40/s, for: 4s|rate: 100/s, for: 10s|' "$SERVER_DIR/$name.flows.yaml")" 3000
        echo "correct $name" >&2
        read -r _ _ _ _ violations n dropped _ < <(run "correct-$name" "$file" 7)
        total=$((total + n))
        echo "| $name | 1000 | $n | $dropped | $violations |" >>"$RESULTS"
    done
    echo "| all | 2000 | $total | | |" >>"$RESULTS"
}

for section in flows races correct; do
    case "$SECTIONS" in *" $section "*) "$section" ;; esac
done
stop_server
cat "$RESULTS"
