#!/usr/bin/env bash
# usage: scripts/pgo-profile.sh [OUT] — an LLVM IR profile of the SIP hold call for profile-guided layout
# (swiftc -ir-profile-use; docs/SIP.md, "Where the instruction-cache misses lie"): an instrumented release build of callstorm
# (-ir-profile-generate, its own scratch path), the bench's hold call run through a scratch Kamailio with shared
# and per-device sockets (200 calls/s for 10 s each), and the raw profiles merged into OUT
# (Benchmarks/pgo/callstorm.profdata by default). Re-run after changing code on the SIP path: functions whose
# code no longer matches the profile are compiled as without it (swiftc warns), the rest keep their layout. The
# raw profiles go where LLVM_PROFILE_FILE says (set per run here), so the build's flags stay the same between runs.
# env: PGO_SCRATCH (.build-pgo-gen), PGO_RATE (200), PGO_SECONDS (10).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/Benchmarks/pgo/callstorm.profdata}
scratch=${PGO_SCRATCH:-$root/.build-pgo-gen}
rate=${PGO_RATE:-200}; seconds=${PGO_SECONDS:-10}
d=$(mktemp -d)
raw="$d/raw"; mkdir -p "$raw"
(cd "$root" && swift build -c release --product callstorm --scratch-path "$scratch" \
    -Xswiftc -ir-profile-generate) || { echo "the instrumented build failed" >&2; exit 1; }
bin="$scratch/release/callstorm"
source "$root/scripts/bench-sip-lib.sh"
kamailio_scratch 512
for sc in sip-hold-shared.yaml sip-hold.yaml; do
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${seconds}s|" \
        -e "s/^devices: [0-9]*/devices: $(( rate * 4 ))/" "$root/Benchmarks/scenarios/$sc" > "$d/$sc"
    LLVM_PROFILE_FILE="$raw/$sc-%p.profraw" "$bin" run "$d/$sc" --workers 1 --out "$d/out-$sc" --quiet \
        > "$d/$sc.log" 2>&1
    echo "$sc: exit $?; $(tail -1 "$d/$sc.log")"
done
mkdir -p "$(dirname "$out")"
llvm-profdata merge -o "$out" "$raw"/*.profraw || { echo "no profile merged" >&2; exit 1; }
echo "wrote $out"
