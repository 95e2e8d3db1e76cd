#!/usr/bin/env bash
# `make test-sanitize`: the test suite under ThreadSanitizer, then AddressSanitizer, each in its own scratch path
# (.build/tsan, .build/asan) with the callstorm binary the CLI tests launch built the same way.
# SANITIZERS picks which (default "thread address"); FILTER runs a subset (a swift test --filter pattern).
# SKIP (a swift test --skip pattern) leaves out tests that need real-time throughput a sanitized build (5-15x
# slower) does not reach on 2 cores: whole-plan call counts, shard-vs-process equality, race reproduction whose
# views settle within 500 ms, the proxy's timeout toxic, and the push-delay fault's 200 ms ± 20 ms on 480 calls in 6 s
# (under TSan with the machine loaded: 288 of 480 calls started, delay off by 200 ms); they pass in `make test`.
# SKIP= runs everything.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
# The sanitizers bring their own malloc; Package.swift leaves jemalloc out of callstorm when this is set.
export CALLSTORM_NO_JEMALLOC=1
# halt_on_error: the first race or memory error fails its test process with the report in the log.
# scripts/tsan-suppressions.txt lists the reports that are not races (each with its reason).
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan-suppressions.txt}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1}
# Synchronization.Mutex's contended lock and unlock are invisible to TSan (it then reports the bodies as racing):
# Mutex comes from our Locking module, whose pthread mutex TSan follows (Sources/Locking/Mutex.swift).
stale=$(grep -rlx 'import Synchronization' Sources Tests | xargs -r grep -lE '\bMutex\b' |
    xargs -r grep -Lx 'import Locking' || true)
if [ -n "$stale" ]; then
    echo "!! Synchronization.Mutex, which TSan cannot follow under contention; use 'import Locking' (and" \
        "'import struct Synchronization.Atomic' for atomics) in:" $stale >&2
fi
status=0
for s in ${SANITIZERS:-thread address}; do
    scratch=.build/${s:0:1}san
    echo "== $s sanitizer (scratch $scratch)"
    swift build --scratch-path "$scratch" --sanitize="$s" --product callstorm
    bin=$(swift build --scratch-path "$scratch" --sanitize="$s" --show-bin-path)/callstorm
    args=(--scratch-path "$scratch" --sanitize="$s" --disable-swift-testing)
    [ -n "${FILTER:-}" ] && args+=(--filter "$FILTER")
    skip='DistributedRunTests|RaceCheckerTests|TimeoutToxicTests|testCompleteRunMeasuresEveryCall|testPushDelayAdds'
    skip=${SKIP-$skip}
    [ -n "$skip" ] && args+=(--skip "$skip")
    if ! CALLSTORM_BIN=$bin swift test "${args[@]}"; then
        echo "!! tests under the $s sanitizer failed" >&2
        status=1
    fi
done
exit $status
