#!/usr/bin/env bash
# usage: scripts/bench-sip-instructions.sh [RATE] [N1] [N2] — instructions per SIP call under callgrind, the client
# side only, for the call of `make bench`'s SIP section (scripts/bench-sip.sh): SIPp's UAC and UAS
# (deploy/sipp/uac-hold.xml, uas-hold.xml) and callstorm (Benchmarks/scenarios/sip-hold.yaml, both ends), each
# through one native Kamailio. Each side runs twice, N1 and N2 calls at RATE calls/s (default 20/s, 40 and 120
# calls), with the same devices, and the difference of the instruction totals is divided by the difference of the
# calls completed: start-up, registration and the report cancel out, what is left is the cost of one call. Instruction counts do not change
# with the machine's load, so this compares the two on a busy machine where timed runs cannot. Timeouts and drains
# are long, and callstorm has 10 devices per call/s (at least 200), so valgrind's slowness changes no outcome (with 3
# per call/s, calls held their devices long enough under valgrind that runs dropped calls for want of an idle one).
# Then callstorm again with media at each share of SIP_INSTRUCTIONS_MEDIA ("100% 10%"): what RTP adds per call,
# in total and by layer (issue 34). Prints one line per side; KEEP=1 keeps the files.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
rate=${1:-20}; n1=${2:-40}; n2=${3:-120}
bin=${CALLSTORM_BIN:-$root/.build/release/callstorm}
d=$(mktemp -d)
source "$root/scripts/callgrind-runs.sh"
source "$root/scripts/bench-sip-lib.sh"
kamailio_scratch 64
cg() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@"; }

# sipp_total N: instructions of the UAC and UAS together for N calls.
sipp_total() {
    local uport cport upid
    uport=$(free_port); cport=$(free_port)
    sipp -sf "$root/deploy/sipp/uas-hold-register.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 -p "$uport" \
        -au sipp-uas -ap callstorm -m 1 -timeout 10s -nostdin > "$d/reg.out" 2>&1
    (cd "$d" && cg sipp -sf "$root/deploy/sipp/uas-hold.xml" -i 127.0.0.1 -p "$uport" -m "$1" -timeout 300s \
        -nostdin > "uas-$1.out" 2> "uas-$1.cg") & upid=$!
    sleep 3
    (cd "$d" && cg sipp -sf "$root/deploy/sipp/uac-hold.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 -trace_stat \
        -stf "uac-$1.csv" -p "$cport" -m "$1" -r "$rate" -timeout 300s -nostdin > "uac-$1.out" 2> "uac-$1.cg")
    wait "$upid"
    echo $(( $(collected "$d/uac-$1.cg") + $(collected "$d/uas-$1.cg") ))
}

# cs_total N: callstorm's instructions for N calls (devices fixed, so registration is the same in both runs).
cs_total() {
    local secs=$(( $1 / rate ))
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${secs}s|" \
        -e "s/^devices: [0-9]*/devices: $(( rate * 10 > 200 ? rate * 10 : 200 ))/" -e "s/^drain: 10s/drain: 60s/" \
        -e "s/action_timeout: 5s/action_timeout: 60s/" "$root/Benchmarks/scenarios/$sip_hold" > "$d/cs-$1.yaml"
    objcopy --strip-debug "$bin" "$d/cs"
    # Kept: callgrind_layers.py reads both profiles for the per-layer row.
    valgrind --tool=callgrind --callgrind-out-file="$d/cs-$1.callgrind" "$d/cs" run "$d/cs-$1.yaml" --workers 1 \
        --out "$d/cs-$1" --quiet > "$d/cs-$1.log" 2> "$d/cs-$1.cg"
    collected "$d/cs-$1.cg"
}

# cs_media_total N SHARE: the same as cs_total with `media: { share: SHARE }` (RTP both ways from each end's answer,
# straight between the devices: no relay here), for what media adds per call; profile kept for the per-layer row.
cs_media_total() {
    local secs=$(( $1 / rate )) tag=m${2%\%}-$1
    sed -e "s/127.0.0.1:5060/127.0.0.1:$kport/" -e "s|rate: [0-9]*/s, for: [0-9]*s|rate: $rate/s, for: ${secs}s|" \
        -e "s/^devices: [0-9]*/devices: $(( rate * 10 > 200 ? rate * 10 : 200 ))/" -e "s/^drain: 10s/drain: 60s/" \
        -e "s/action_timeout: 5s/action_timeout: 60s/" "$root/Benchmarks/scenarios/$sip_hold" > "$d/cs-$tag.yaml"
    printf 'media: { share: %s, one_way_after: 60s }\n' "$2" >> "$d/cs-$tag.yaml"
    [ -x "$d/cs" ] || objcopy --strip-debug "$bin" "$d/cs"
    valgrind --tool=callgrind --callgrind-out-file="$d/cs-$tag.callgrind" "$d/cs" run "$d/cs-$tag.yaml" --workers 1 \
        --out "$d/cs-$tag" --quiet > "$d/cs-$tag.log" 2> "$d/cs-$tag.cg"
    collected "$d/cs-$tag.cg"
}

successful() {
    python3 -c "import csv, sys
print(list(csv.DictReader(open(sys.argv[1]), delimiter=';'))[-1]['SuccessfulCall(C)'])" "$1" 2>/dev/null || echo 0
}
# Per call: the difference of the totals over the difference of the calls that completed (valgrind's slowness can
# cost a run a few calls; the planned counts are N1 and N2).
# SIP_INSTRUCTIONS_SIPP=0 skips SIPp's half (a branch's before/after of callstorm alone; SIPp's figure does not move).
if [ "${SIP_INSTRUCTIONS_SIPP:-1}" = 1 ]; then
    s1=$(sipp_total "$n1"); s2=$(sipp_total "$n2")
    k1=$(successful "$d/uac-$n1.csv"); k2=$(successful "$d/uac-$n2.csv")
    sipp_per=$(per_call "${s1:-0}" "${s2:-0}" "$k1" "$k2")
    echo "SIPp UAC + UAS: $s1 instructions for $k1 calls, $s2 for $k2 (of $n1 and $n2 planned): $sipp_per per call"
else
    s1=0 s2=0 k1=0 k2=0 sipp_per=0
fi
c1=$(cs_total "$n1"); c2=$(cs_total "$n2")
m1=$(completed "$d/cs-$n1/summary.json"); m2=$(completed "$d/cs-$n2/summary.json")
cs_per=$(per_call "${c1:-0}" "${c2:-0}" "$m1" "$m2")
echo "callstorm: $c1 instructions for $m1 calls, $c2 for $m2 (of $n1 and $n2 planned): $cs_per per call"
# Where callstorm's per-call instructions go, layer by layer (module by module), from the same two profiles.
python3 "$root/scripts/callgrind_layers.py" "$d/cs-$n1.callgrind" "$d/cs-$n2.callgrind" "${m1:-0}" "${m2:-0}" \
    || echo "callgrind_layers.py could not read the profiles"
python3 "$root/scripts/callgrind_layers.py" "$d/cs-$n1.callgrind" "$d/cs-$n2.callgrind" "${m1:-0}" "${m2:-0}" \
    --json > "$d/layers.json" 2>/dev/null || echo '{}' > "$d/layers.json"
# Reference counting and allocations per call, and the functions that make most of them (user time per instruction).
python3 "$root/scripts/callgrind_arc.py" "$d/cs-$n1.callgrind" "$d/cs-$n2.callgrind" "${m1:-0}" "${m2:-0}" --top 15 \
    || echo "callgrind_arc.py could not read the profiles"
# With media (issue 34): the same call at each share of SIP_INSTRUCTIONS_MEDIA ("100% 10%"; "" for none), per call
# and by layer, into media-<share>.json for the rows of what media adds per call.
for share in ${SIP_INSTRUCTIONS_MEDIA-100% 10%}; do
    t=m${share%\%}
    x1=$(cs_media_total "$n1" "$share"); x2=$(cs_media_total "$n2" "$share")
    y1=$(completed "$d/cs-$t-$n1/summary.json"); y2=$(completed "$d/cs-$t-$n2/summary.json")
    xp=$(per_call "${x1:-0}" "${x2:-0}" "$y1" "$y2")
    echo "callstorm with media.share $share: $x1 instructions for $y1 calls, $x2 for $y2: $xp per call"
    python3 "$root/scripts/callgrind_layers.py" "$d/cs-$t-$n1.callgrind" "$d/cs-$t-$n2.callgrind" "${y1:-0}" \
        "${y2:-0}" --json > "$d/layers-$t.json" 2>/dev/null || echo '{}' > "$d/layers-$t.json"
    python3 - "$d" "$t" "$share" "$n1" "$n2" "${x1:-0}" "${x2:-0}" "${y1:-0}" "${y2:-0}" "${xp:-0}" "${c1:-0}" \
        "${c2:-0}" <<'PY'
import json, os, sys
d, t, share, *v = sys.argv[1:]
n1, n2, x1, x2, y1, y2, per, c1, c2 = (int(x or 0) for x in v)


def counters(name):
    try:
        return json.load(open(os.path.join(d, name, "summary.json")))["counters"]
    except (OSError, ValueError, KeyError):
        return {}


def packets(c):  # RTP packets callstorm handled: sent and received, both ends
    return c.get("media.packets_sent", 0) + c.get("media.packets_received", 0)


def retransmissions(c):  # SIP retransmissions callstorm sent: a slowed run's extra work, not media's
    return sum(n for k, n in c.items() if k.startswith("sip.retransmissions_sent."))


try:
    by_layer = json.load(open(os.path.join(d, f"layers-{t}.json")))
except (OSError, ValueError):
    by_layer = {}
m1, m2, b1, b2 = (counters(f"cs-{t}-{n1}"), counters(f"cs-{t}-{n2}"), counters(f"cs-{n1}"), counters(f"cs-{n2}"))
# Instructions per RTP packet handled: what the media runs spent beyond the runs without media, over the packets.
dp = packets(m2) - packets(m1)
per_packet = ((x2 - x1) - (c2 - c1)) // dp if dp > 0 and c2 > c1 else None
json.dump({"share": share, "instructions": [x1, x2], "calls": [y1, y2], "per_call": per, "layers": by_layer,
           "media_calls": [m1.get("media.calls", 0), m2.get("media.calls", 0)],
           "packets": [packets(m1), packets(m2)], "per_packet": per_packet,
           "retransmissions_sent": {"media": [retransmissions(m1), retransmissions(m2)],
                                    "no_media": [retransmissions(b1), retransmissions(b2)]}},
          open(os.path.join(d, f"media-{t}.json"), "w"), indent=2)
PY
done
# SIP_INSTRUCTIONS_JSON=FILE: the figures for bench-results.py (bench.sh's sip-instructions section).
if [ -n "${SIP_INSTRUCTIONS_JSON:-}" ]; then
    python3 - "$SIP_INSTRUCTIONS_JSON" "$d/layers.json" "$rate" "$n1" "$n2" "$s1" "$s2" "$k1" "$k2" "$sipp_per" "$c1" "$c2" "$m1" "$m2" \
        "$cs_per" <<'PY'
import json, sys
out, layers, *v = sys.argv[1:]
rate, n1, n2, s1, s2, k1, k2, sp, c1, c2, m1, m2, cp = (int(x or 0) for x in v)
try:
    by_layer = json.load(open(layers))
except (OSError, ValueError):
    by_layer = {}
import glob, os
media = {}
for path in sorted(glob.glob(os.path.join(os.path.dirname(layers), "media-m*.json"))):
    try:
        m = json.load(open(path))
        media[m["share"]] = m
    except (OSError, ValueError, KeyError):
        pass
json.dump({"rate": rate, "planned": [n1, n2], "sipp": {"instructions": [s1, s2], "calls": [k1, k2], "per_call": sp},
           "callstorm": {"instructions": [c1, c2], "calls": [m1, m2], "per_call": cp, "layers": by_layer},
           "callstorm_media": media},
          open(out, "w"), indent=2)
PY
fi
