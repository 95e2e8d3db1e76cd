#!/usr/bin/env bash
# The registration storm (issue 35, acceptance 2): Scenarios/chaos/sip-storm.yaml, 2,000 awake SIP devices over TLS
# holding one connection each to the Kamailio the run starts, which is killed 5 s into the load and started again
# 2 s later. Read by scripts/bench_results_storm.py: the time to 90 %, 99 % and all re-registered (sip.reregister),
# the re-REGISTERs refused by code, the calls the restart cost (attributed to it) and those lost without a fault,
# the checker's violations. No peer: SIPp has no TLS in Debian's build and no flow recovery. One run (each is a
# whole storm, ~45 s); Kamailio is a child of the run, so neither is pinned to a core.
#
# usage: scripts/bench-sip-storm.sh WORKDIR  (env: CALLSTORM_BIN, STORM_DEVICES (2000), STORM_TRANSPORT (tls))
set -euo pipefail
work=${1:?usage: bench-sip-storm.sh WORKDIR}
bin=${CALLSTORM_BIN:-$PWD/.build/release/callstorm}
devices=${STORM_DEVICES:-2000}
transport=${STORM_TRANSPORT:-tls}
mkdir -p "$work"
scenario="$work/sip-storm.yaml"
sed -e "s/^devices: .*/devices: $devices/" -e "s/transport: tls/transport: $transport/" \
    Scenarios/chaos/sip-storm.yaml > "$scenario"
echo "$devices $transport" > "$work/plan"
# Some 2 descriptors per device (its connection, Kamailio's end) and the run's own.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
rm -rf "$work/run"
child=""
trap '[ -z "$child" ] || kill "$child" 2>/dev/null || true' EXIT
/usr/bin/time -f '%U %S %M' -o "$work/run.time" "$bin" run "$scenario" --out "$work/run" --quiet \
    > "$work/run.log" 2>&1 &
child=$!
wait "$child" || echo "storm run exited $? (its verdict is in $work/run/summary.json)" >&2
child=""
python3 scripts/bench_results_storm.py one "$work" || true
