#!/usr/bin/env bash
# `make fuzz`: builds CallstormFuzz with libFuzzer and AddressSanitizer (its own scratch path, so the normal build
# is untouched) and fuzzes each target for FUZZ_SECONDS (default 60) from its committed corpus in
# Fuzz/corpus/<target>/; new interesting inputs are added to the corpus (commit them). A crash stops the target,
# leaves the input in Fuzz/crashers/<target>-*, and makes the script exit 1. FUZZ_TARGETS picks targets.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-scenario http1 http2 json push websocket sip otlp bencode rtp rtcp http1-response recorder history}
scratch=.build/fuzz
# lld: gold fails on libFuzzer's objects here (internal error in its DWARF reader).
flags=(--product CallstormFuzz --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
       -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld)
swift build "${flags[@]}" 2>&1 | grep -v "Cannot export local symbol" || true
bin=$(swift build "${flags[@]}" --show-bin-path)/CallstormFuzz
[ -x "$bin" ] || { echo "fuzz build failed" >&2; exit 3; }
mkdir -p Fuzz/crashers Fuzz/logs
# Swift's own backtracer would hold a crashing process for a long time; libFuzzer reports the crash itself.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
status=0
for t in $targets; do
    mkdir -p "Fuzz/corpus/$t"
    echo "== $t: ${seconds}s"
    set +e
    CALLSTORM_FUZZ_TARGET=$t "$bin" "Fuzz/corpus/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 \
        -max_len=8192 -print_final_stats=1 -artifact_prefix="Fuzz/crashers/$t-" > "Fuzz/logs/$t.log" 2>&1
    rc=$?
    set -e
    grep -E "^stat::(number_of_executed_units|new_units_added)|ERROR|Done [0-9]+ runs" "Fuzz/logs/$t.log" | tail -4
    # Keep the committed corpus small: only inputs that add coverage survive the merge.
    rm -rf "Fuzz/corpus/.$t.min" && mkdir -p "Fuzz/corpus/.$t.min"
    if CALLSTORM_FUZZ_TARGET=$t "$bin" -merge=1 "Fuzz/corpus/.$t.min" "Fuzz/corpus/$t" > "Fuzz/logs/$t.merge.log" 2>&1; then
        rm -rf "Fuzz/corpus/$t" && mv "Fuzz/corpus/.$t.min" "Fuzz/corpus/$t"
    else
        rm -rf "Fuzz/corpus/.$t.min"
    fi
    echo "   corpus: $(ls "Fuzz/corpus/$t" | wc -l) inputs"
    if [ $rc -ne 0 ]; then
        echo "!! $t: libFuzzer exited $rc; see Fuzz/logs/$t.log and Fuzz/crashers/" >&2
        status=1
    fi
done
exit $status
