#!/usr/bin/env bash
# Kamailio's shared-memory peak under SIPp's hold call (deploy/sipp/uac-hold.xml -> Kamailio -> uas-hold.xml) at
# RATE calls/s for SECONDS: the measurement KamailioSizing's per-transaction figure comes from (docs/SIP.md, "Kamailio
# started by the run"). The shipped configuration plus ctl (for `kamcmd core.shmmem`), -m 2048 so nothing runs out.
#   scripts/measure-kamailio-shm.sh [RATE] [SECONDS]      # default 400 10
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
r=${1:-400}
T=${2:-10}
w=$(mktemp -d /tmp/callstorm-shm-XXXXXX)
trap 'rm -rf "$w"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
kport=$(free_port); uport=$(free_port); cport=$(free_port)
mods=$(dirname "$(ls /usr/lib/*/kamailio/modules/tm.so /usr/lib/kamailio/modules/tm.so 2>/dev/null | head -1)")
ctl='loadmodule "ctl.so"\nmodparam("ctl", "binrpc", "unix:'"$w"'/ctl.sock")'
sed "s|^loadmodule \"auth.so\"\$|loadmodule \"auth.so\"\n$ctl|" "$root/deploy/kamailio/kamailio.cfg" > "$w/k.cfg"
mkdir -p "$w/run"
/usr/sbin/kamailio -f "$w/k.cfg" -DD -E -L "$mods" -Y "$w/run" -l "udp:127.0.0.1:$kport" -l "tcp:127.0.0.1:$kport" \
    -m 2048 -M 8 > "$w/k.log" 2>&1 & kpid=$!
trap 'kill $kpid 2>/dev/null || true; rm -rf "$w"' EXIT
sleep 2
shm() { kamcmd -s "unix:$w/ctl.sock" core.shmmem | awk -v k="$1" '$1 == k":" { print $2 }'; }
idle=$(shm max_used)
(cd "$w" && sipp -sf "$root/deploy/sipp/uas-hold-register.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 \
    -p "$uport" -au sipp-uas -ap callstorm -m 1 -timeout 10s -timeout_error -nostdin > reg.out 2>&1)
(cd "$w" && exec sipp -sf "$root/deploy/sipp/uas-hold.xml" -i 127.0.0.1 -p "$uport" -m $(( r * T )) \
    -timeout $(( T + 30 ))s -nostdin > uas.out 2>&1) & upid=$!
sleep 0.5
(cd "$w" && sipp -sf "$root/deploy/sipp/uac-hold.xml" -s sipp-uas "127.0.0.1:$kport" -i 127.0.0.1 -p "$cport" \
    -m $(( r * T )) -r "$r" -timeout $(( T + 30 ))s -timeout_error -nostdin > uac.out 2>&1) || true
peak=$(shm max_used)
kill "$upid" 2>/dev/null || true
ok=$(grep -o "Successful call *| *[0-9]* *| *[0-9]*" "$w/uac.out" | awk '{ print $NF }' | tail -1)
echo "rate $r/s for ${T}s: $ok of $(( r * T )) calls successful;" \
     "shared memory max_used idle $(( idle / 1048576 )) MB, peak $(( peak / 1048576 )) MB; out-of-mem lines $(grep -c 'out of mem' "$w/k.log" || true)"
