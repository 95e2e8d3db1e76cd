#!/usr/bin/env bash
# Behaviour unchanged? (issue 31, acceptance 5; docs/results/issue31-behaviour.md)
#
# Usage: scripts/compare-behaviour.sh OLD_BIN NEW_BIN [WORKDIR]
#   e.g. scripts/compare-behaviour.sh /work/wt-base/.build/debug/callstorm .build/debug/callstorm
#
# Runs five scenarios with their own fixed seeds (smoke, chaos/device, websocket, group-merge, and
# sip/incoming-wake through a Kamailio each run starts and stops itself), OLD_RUNS times (default 2) with OLD_BIN
# and once with NEW_BIN, each into its own run directory under WORKDIR (default: a new /tmp/compare-behaviour.*),
# on loopback, 2 workers, arrivals cut to a few seconds, each run bounded by RUN_TIMEOUT seconds (default 150).
# Then scripts/compare-runs.py compares old-1 with new, taking as natural variation what differs between any two
# old runs (timing: push-vs-response order, which idle device a call takes, a push still in flight at stop), and
# prints per scenario one of
#   same                                     counters.csv, the books, faults.csv and history.jsonl (rows as
#                                            multisets, without times, op numbers, UUIDs and device ids) are equal;
#   differs only where two old runs differ   every counter, book entry and row that differs old-1/new also differs
#                                            between two old runs, or is a row of a kind (ids and views taken out)
#                                            that does, or is a counter compare-runs.py's KNOWN_RACES names (seen
#                                            to differ between old runs before; named as such): the counters are
#                                            listed, the rows are in the .txt;
#   differs                                  with the keys and rows that differ beyond that.
# A race is rare enough that two old runs may not both show it, so before a scenario is called "differs" the old
# binary runs again, up to EXTRA_OLD_RUNS (default 3) more times, and old-1/new is judged against all old runs.
# For the SIP scenario the history is compared as written first; when that differs, again with the SIP
# identifiers drawn from the seed masked (Call-IDs, tags, branches, ports: compare-runs.py --mask-sip), and the
# line says which one held ("same with SIP identifiers masked" means the SIP layer draws them in another order).
# Exit 0: nothing differs beyond what varies between old runs; 1: a real difference; 3: a run failed (exit code
# other than 0 or 1, a timeout, a missing binary or kamailio), named in the table.
# Scenario files are this checkout's (SCENARIO_ROOT=DIR takes DIR/Scenarios instead, e.g. the old checkout's if the
# old binary cannot read a newer file); both binaries run the same files.
# Takes 3-6 minutes on 2 cores (each run 4-50 s: the calls' talk times and the drain, not the arrivals).
set -u
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 2
fi
abspath() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
OLD=$(abspath "$1"); NEW=$(abspath "$2")
WORK=${3:-$(mktemp -d /tmp/compare-behaviour.XXXXXX)}; WORK=$(abspath "$WORK")
OLD_RUNS=${OLD_RUNS:-2}; EXTRA_OLD_RUNS=${EXTRA_OLD_RUNS:-3}; RUN_TIMEOUT=${RUN_TIMEOUT:-150}; WORKERS=2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
COMPARE="python3 $ROOT/scripts/compare-runs.py"
for bin in "$OLD" "$NEW"; do
    [ -x "$bin" ] || { echo "compare-behaviour: $bin is not an executable callstorm (build it: swift build --product callstorm)" >&2; exit 3; }
done
[ "$OLD_RUNS" -ge 2 ] 2>/dev/null || { echo "compare-behaviour: OLD_RUNS must be at least 2" >&2; exit 2; }
mkdir -p "$WORK/scenarios"
# Run from the checkout: Scenarios/ are read here, and a Kamailio the run starts takes deploy/kamailio/kamailio.cfg
# from the current directory, so both binaries' Kamailios run the same configuration.
cd "$ROOT"

# Where a binary comes from, when it sits in a checkout's .build (informative: the binary itself names no commit):
# the checkout's HEAD, the last commit that changed its sources, uncommitted source changes, the binary's time.
commit_of() {
    local dir c src built; dir=$(dirname "$1"); dir=${dir%%/.build/*}
    built=$(date -u -r "$1" '+%H:%M UTC' 2>/dev/null)
    c=$(git -C "$dir" rev-parse --short HEAD 2>/dev/null) || { echo "not in a checkout; built $built"; return; }
    src=$(git -C "$dir" log -1 --format=%h -- Sources Package.swift 2>/dev/null)
    [ -z "$(git -C "$dir" status --porcelain --untracked-files=no -- Sources Package.swift 2>/dev/null)" ] \
        || src="$src+uncommitted changes"
    echo "$dir at $c, sources of $src; built $built"
}
load() { cut -d' ' -f1-3 /proc/loadavg; }

# The SIP example points at a Kamailio on 5060 and a gateway on 2197; here each run starts its own Kamailio (free
# port, push route on because the devices sleep, stopped by PID) and its gateway takes a free port, so runs with the
# same seed never meet one server (equal Call-IDs would be taken for retransmissions: docs/SIP.md).
sip_yaml="$WORK/scenarios/sip-incoming-wake.yaml"
SCN=${SCENARIO_ROOT:-$ROOT}/Scenarios
[ -f "$SCN/smoke.yaml" ] || { echo "compare-behaviour: no scenarios in $SCN" >&2; exit 2; }
sed -e 's|target: { sip: { registrar: "127.0.0.1:5060" } }|target: { sip: { kamailio: true } }|' \
    -e 's|listen: "127.0.0.1:2197"|listen: "127.0.0.1:0"|' "$SCN/sip/incoming-wake.yaml" > "$sip_yaml"
grep -q 'kamailio: true' "$sip_yaml" && grep -q 'listen: "127.0.0.1:0"' "$sip_yaml" || {
    echo "compare-behaviour: $SCN/sip/incoming-wake.yaml changed its target or push line; update the sed here" >&2
    exit 3; }

# name | scenario file | extra flags. Arrivals cut short with --duration (the seed and the plan's start stay);
# chaos/device keeps its 6 s so both fault windows (1-3 s, 3-5 s) fall inside; the SIP example is 2 s already.
SCENARIOS="smoke|$SCN/smoke.yaml|--duration 4s
chaos-device|$SCN/chaos/device.yaml|
websocket|$SCN/websocket.yaml|--duration 5s
group-merge|$SCN/group-merge.yaml|--duration 4s
sip-incoming-wake|$sip_yaml|"

echo "compare-behaviour: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(load) before"
echo "  old: $OLD ($(commit_of "$OLD")), $OLD_RUNS runs"
echo "  new: $NEW ($(commit_of "$NEW")), 1 run"
echo "  runs and comparisons in $WORK; $WORKERS workers, each run bounded by ${RUN_TIMEOUT}s"
command -v kamailio > /dev/null || echo "  warning: no kamailio on PATH: sip-incoming-wake will fail (scripts/test-deps.sh)"

# run BIN SCENARIO_FILE FLAGS DIR: one bounded run; its stdout+stderr in DIR.log. Exit 0 (passed) and 1 (a
# threshold failed) are both a finished run whose files can be compared.
run() {
    local bin=$1 file=$2 flags=$3 dir=$4 rc
    rm -rf "$dir"
    # shellcheck disable=SC2086 # flags are words
    timeout -k 10 "$RUN_TIMEOUT" "$bin" run "$file" --out "$dir" --workers "$WORKERS" --quiet $flags > "$dir.log" 2>&1
    rc=$?
    if [ $rc -gt 1 ] || [ ! -f "$dir/counters.csv" ] || [ ! -f "$dir/history.jsonl" ]; then
        echo "    $dir: exit $rc$([ $rc = 124 ] && echo ' (timed out)'); see $dir.log" >&2
        return 1
    fi
}

# verdict_of D [--mask-sip]: old-1 against new, with every other old run as natural variation; writes
# D/old-1-vs-new[-masked].txt and prints compare-runs.py's verdict word (same | natural | differs).
verdict_of() {
    local d=$1 mask=${2:-} out others=() dir
    for dir in "$d"/old-*; do [ "$dir" != "$d/old-1" ] && [ -d "$dir" ] && others+=(--natural "$dir"); done
    out="$d/old-1-vs-new${mask:+-masked}.txt"
    $COMPARE $mask "${others[@]}" "$d/old-1" "$d/new" > "$out" 2>&1
    grep '^verdict:' "$out" | cut -d' ' -f2
}

table=""; status=0
while IFS='|' read -r name file flags; do
    d="$WORK/$name"; rm -rf "$d"; mkdir -p "$d"; start=$(date +%s)
    echo "== $name ($file${flags:+ $flags})"
    failed=""
    for i in $(seq 1 "$OLD_RUNS"); do run "$OLD" "$file" "$flags" "$d/old-$i" || failed="old-$i"; done
    run "$NEW" "$file" "$flags" "$d/new" || failed="${failed:+$failed, }new"
    if [ -n "$failed" ]; then
        echo "   run failed: $failed"
        table+="| $name | run failed: $failed (see $d/*.log) | | | |"$'\n'; status=3; continue
    fi
    # What varies between two old runs, for the record (as written, with device ids).
    $COMPARE "$d/old-1" "$d/old-2" > "$d/old-1-vs-old-2.txt" 2>&1
    verdict=$(verdict_of "$d"); masked=""
    if [ "$verdict" = differs ] && [ "$name" = sip-incoming-wake ]; then
        masked=$(verdict_of "$d" --mask-sip)
    fi
    # A race that two old runs happen not to show is not a change: before calling a difference real, run the old
    # binary again (up to EXTRA_OLD_RUNS more times) and judge against the variation of all old runs.
    n=$OLD_RUNS
    while [ "${masked:-$verdict}" = differs ] && [ $n -lt $((OLD_RUNS + EXTRA_OLD_RUNS)) ]; do
        n=$((n + 1)); echo "   differs; one more old run (old-$n) to see whether two old runs differ there too"
        run "$OLD" "$file" "$flags" "$d/old-$n" || { echo "   run failed: old-$n"; status=3; break; }
        if [ -n "$masked" ]; then masked=$(verdict_of "$d" --mask-sip); else verdict=$(verdict_of "$d"); fi
    done
    calls=$(grep -h '^calls.started,' "$d/new/counters.csv" | cut -d, -f2)
    rows=$(wc -l < "$d/new/history.jsonl")
    txt="$d/old-1-vs-new${masked:+-masked}.txt"
    varies=$(sed -n 's/^-- against .*keys differ A\/B, \([0-9]*\) differ between some two runs.*/\1/p' "$txt")
    case "$verdict${masked:+/$masked}" in
        same) result="same" ;;
        natural) result="differs only where two old runs differ" ;;
        differs/same) result="same with SIP identifiers masked (the SIP layer draws them in another order)" ;;
        differs/natural) result="with SIP identifiers masked, differs only where two old runs differ" ;;
        *) result="**differs**"; status=1 ;;
    esac
    # The counters old-1 and new differ in (the rows are in the .txt files).
    if [ "${masked:-$verdict}" = natural ]; then
        keys=$($COMPARE "$d/old-1" "$d/new" 2>/dev/null | sed -n 's/^  counters.csv \([^:]*\):.*/\1/p' | paste -sd' ')
        [ -n "$keys" ] && result="$result (counters: $keys)"
        raced=$(sed -n 's/^  known races (KNOWN_RACES) that these runs of A.s binary did not show: //p' "$txt")
        [ -n "$raced" ] && result="$result; known races these old runs did not show: $raced"
    fi
    echo "   $result; $calls calls, $rows history rows; $n old runs, $varies keys vary between them; $(( $(date +%s) - start )) s"
    [ "$result" = "**differs**" ] && sed -n '/^verdict: differs/,$p' "$txt" | sed 's/^/   /'
    table+="| $name | $result | $calls | $rows | $n | $varies |"$'\n'
done <<< "$SCENARIOS"

echo
echo "load average $(load) after"
echo "| scenario | old-1 against new | calls (new) | history rows (new) | old runs | keys varying between old runs |"
echo "|---|---|---|---|---|---|"
printf '%s' "$table"
echo "details: $WORK/<scenario>/old-1-vs-new.txt and old-1-vs-old-2.txt (compare-runs.py's output)"
exit $status
