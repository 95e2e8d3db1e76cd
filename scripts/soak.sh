#!/usr/bin/env bash
# `make soak`: a long run at steady load (Scenarios/soak.yaml, 30 minutes), then judges the harness's own RSS,
# open file descriptors and threads, sampled once a second into the run's raw/recorder-harness.json:
#   - RSS grows less than 5 % from the end of the warm-up (the first 5 minutes) to the end;
#   - fds and threads after warm-up stay within a small band (no leak of sockets or threads).
# Writes Benchmarks/results/soak-<date>.md (figures, verdict) and exits 1 when a check fails.
# SOAK_DURATION (e.g. 6m) shortens the arrival window to try the script; WARMUP_SECONDS changes the warm-up.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CALLSTORM_BIN:-.build/release/callstorm}
out=Benchmarks/results
date=$(date -u +%Y-%m-%dT%H%MZ)
run=${SOAK_RUN_DIR:-Benchmarks/work/soak-$date}
mkdir -p "$out" "$(dirname "$run")"
args=(run Scenarios/soak.yaml --out "$run" --quiet)
[ -n "${SOAK_DURATION:-}" ] && args+=(--duration "$SOAK_DURATION")
set +e
"$bin" "${args[@]}" > "$run.log" 2>&1
rc=$?
set -e
echo "callstorm run exited $rc (report: $run/report.html)"
scripts/soak-judge.py "$run" "$out/soak-$date.md" --warmup "${WARMUP_SECONDS:-300}" --exit-code "$rc"
