#!/usr/bin/env bash
# Issue 32, acceptance 5: Benchmarks/scenarios/sip-hold.yaml with `target: { sip: { kamailio: true } }` at 400
# calls/s for 10 s (4,000 calls) through a Kamailio the run starts and sizes itself (KamailioSizing); prints the
# share of calls completed (the goal: >= 99 %), the sizes Kamailio ran with and its "out of mem" lines. Too heavy for
# `make test`: run it on a quiet machine (load average below 1 on 2 cores; it prints the load before and after).
#
#   scripts/acceptance-sip-hold-kamailio.sh [RATE] [SECONDS]
#   CALLSTORM=.build/debug/callstorm scripts/acceptance-sip-hold-kamailio.sh   # default: the release build
#   KEEP=1 ...                                                                  # keep the run directory
# Exit 0 when >= 99 % of the started calls completed, 1 otherwise, 2 when it cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
rate=${1:-400}
seconds=${2:-10}
bin=${CALLSTORM:-.build/release/callstorm}
[ -x "$bin" ] || { echo "no $bin: swift build -c release --product callstorm (or set CALLSTORM)" >&2; exit 2; }
[ -x /usr/sbin/kamailio ] || { echo "kamailio is not installed (scripts/test-deps.sh)" >&2; exit 2; }
work=$(mktemp -d /tmp/callstorm-acceptance-XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
devices=$(( rate * 3 > 50 ? rate * 3 : 50 ))   # a call holds two devices for ~0.8 s (bench-sip.sh's rule)
sed -e 's|target: { sip: { registrar: "127.0.0.1:5060" } }|target: { sip: { kamailio: true } }|' \
    -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${seconds}s|" \
    -e "s/^devices: [0-9]*/devices: $devices/" \
    Benchmarks/scenarios/sip-hold.yaml > "$work/sip-hold.yaml"
grep -q "kamailio: true" "$work/sip-hold.yaml" || { echo "could not rewrite the scenario's target" >&2; exit 2; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
rc=0
"$bin" run "$work/sip-hold.yaml" --workers 1 --out "$work/run" --quiet > "$work/run.log" 2>&1 || rc=$?
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/run" "$rc" <<'PY'
import json, sys
run, rc = sys.argv[1], int(sys.argv[2])
try:
    summary = json.load(open(f"{run}/summary.json"))
except OSError:
    print(f"no summary.json (callstorm exited {rc})"); sys.exit(2)
c = summary["counters"]
started, completed = c.get("calls.started", 0), c.get("calls.completed", 0)
server = summary["facts"].get("server") or {}
log = open(f"{run}/kamailio.log", errors="replace").read()
share = completed / started if started else 0.0
print(f"target: {summary['facts']['target']}")
print(f"kamailio: -m {server.get('sharedMemoryMB')} -M {server.get('privateMemoryMB')} -n {server.get('children')}"
      f" ({server.get('sizing')}); 'out of mem' lines: {log.count('out of mem')}")
print(f"calls: started {started}, completed {completed} ({100 * share:.2f} %), failed {c.get('calls.failed', 0)};"
      f" exit {rc}; verdict: {'; '.join(summary['verdict']['reasons'][:2])}")
print("acceptance: " + ("PASS (>= 99 % completed)" if started and share >= 0.99 else "FAIL (< 99 % completed)"))
sys.exit(0 if started and share >= 0.99 else 1)
PY
