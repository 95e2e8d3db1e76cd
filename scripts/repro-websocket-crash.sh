#!/usr/bin/env bash
# Runs the websocket scenario as compare-behaviour.sh does (2 workers, --duration 5s, quiet, bounded) N times with
# BIN and counts the runs that crashed (exit by a signal, or a "Program crashed" backtrace in the log).
# Usage: scripts/repro-websocket-crash.sh BIN N [WORKDIR]
set -u
BIN=$1; N=$2; WORK=${3:-$(mktemp -d /tmp/s55crash-repro.XXXXXX)}; mkdir -p "$WORK"
ROOT=$(cd "$(dirname "$0")/.." && pwd); cd "$ROOT"
crashes=0; other=0
for i in $(seq 1 "$N"); do
    d="$WORK/run-$i"; rm -rf "$d"
    timeout -k 10 150 "$BIN" run Scenarios/websocket.yaml --out "$d" --workers 2 --quiet --duration 5s > "$d.log" 2>&1
    rc=$?
    if grep -q 'Program crashed' "$d.log" || [ $rc -ge 128 ]; then
        crashes=$((crashes + 1)); echo "run $i: CRASH rc=$rc ($d.log)"
    elif [ $rc -gt 1 ]; then other=$((other + 1)); echo "run $i: rc=$rc ($d.log)"
    else rm -rf "$d" "$d.log"; fi
done
echo "$BIN: $N runs, $crashes crashed, $other other failures (logs in $WORK)"
