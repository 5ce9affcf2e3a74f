#!/usr/bin/env bash
# Sync across devices, end to end (docs/sync.md). Two real agents, each on its own private
# session bus with its own data folder:
#   1. through one shared folder: each device's changes reach the other, same-name projects are
#      one, the other's running session is listed with its device and not in this timer;
#   2. through two real Syncthing instances (Debian's syncthing) on 127.0.0.1 only, each with its
#      own home, global and local discovery, relays and NAT traversal off, GUI and listening on
#      random 127.0.0.1 ports: a day of mixed work on both converges within 60 s, and a kill -9 of
#      one agent mid-way loses nothing it acknowledged.
# Options: --no-build (the products are built), --long (more work: scripts/stress.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES $SYNC_PACKAGES

build=1 steps=24
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --long) steps=200 ;;
        *) say "unknown option $1"; exit 2 ;;
    esac
    shift
done
if [ "$build" = 1 ]; then swift build --product time-agent >&2; swift build --product timectl >&2; fi
BIN="$(swift build --show-bin-path)"
work="$(mktemp -d /tmp/time-sync.XXXXXX)"
export TZ=Europe/Berlin LC_ALL=C.UTF-8 HOME="$work/home"
mkdir -p "$HOME"
declare -A bus=() buspid=() agentpid=()
stpids=()

cleanup() {
    local pid
    for pid in "${agentpid[@]}" "${stpids[@]}" "${buspid[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${agentpid[@]}" "${stpids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
fail() { say "FAIL: $*"; [ -f "$work/agent-a.log" ] && tail -n 5 "$work"/agent-*.log >&2; exit 1; }

start_bus() { # a private session bus per device
    local out
    out="$(dbus-daemon --session --fork --print-address=1 --print-pid=1)"
    bus[$1]="$(sed -n 1p <<<"$out")"
    buspid[$1]="$(sed -n 2p <<<"$out")"
}
ctl() { local device=$1; shift; DBUS_SESSION_BUS_ADDRESS="${bus[$device]}" "$BIN/timectl" "$@"; }
start_agent() { # device, data folder
    DBUS_SESSION_BUS_ADDRESS="${bus[$1]}" "$BIN/time-agent" --no-notifications --no-tray --data-dir "$2" 2>>"$work/agent-$1.log" &
    agentpid[$1]=$!
    for _ in $(seq 100); do ctl "$1" status >/dev/null 2>&1 && return 0; sleep 0.1; done
    fail "the agent of $1 did not come up"
}
stop_agent() { kill "${agentpid[$1]}" 2>/dev/null || true; wait "${agentpid[$1]}" 2>/dev/null || true; unset "agentpid[$1]"; }
# What a person sees: every session's project, times and note, sorted; open ones with their device.
view() { ctl "$1" sessions --from 2000-01-01 --json | python3 -c '
import json, sys
rows = sorted((s["project"], s["start"], s["end"], s["note"]) for s in json.load(sys.stdin))
print("\n".join(map(repr, rows)))'; }
wait_until() { # seconds, description, command...
    local limit=$1 what=$2; shift 2
    local end=$((SECONDS + limit))
    until "$@"; do [ $SECONDS -lt $end ] || fail "$what (not within $limit s)"; sleep 0.2; done
}
same_view() { [ "$(view a)" = "$(view b)" ]; }
has_note() { ctl "$1" sessions --from 2000-01-01 --json | grep -q "\"$2\""; }

say "-- 1. two agents, one shared folder"
start_bus a; start_bus b
start_agent a "$work/data-a"; start_agent b "$work/data-b"
ctl a projects add "Client A" >/dev/null
ctl b projects add "client a" >/dev/null
ctl a add "Client A" --start "yesterday 09:00" --duration 1h --note "laptop morning" >/dev/null
ctl b add "client a" --start "yesterday 14:00" --duration 30m --note "desktop afternoon" >/dev/null
ctl a sync enable "$work/shared" --name laptop >/dev/null
ctl b sync enable "$work/shared" --name desktop >/dev/null
wait_until 10 "the desktop's session reaches the laptop" has_note a "desktop afternoon"
wait_until 10 "the laptop's session reaches the desktop" has_note b "laptop morning"
[ "$(ctl a projects --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 1 ] || fail "same-name projects are not one"
ctl a status --json >/dev/null
ctl a start "Client A" >/dev/null
running_elsewhere() { ctl b sessions --json | python3 -c '
import json, sys
sys.exit(0 if any(s.get("device") == "laptop" and s["state"] == "running" for s in json.load(sys.stdin)) else 1)'; }
wait_until 10 "the laptop's running session is listed on the desktop with its device" running_elsewhere
[ "$(ctl b status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')" = idle ] || fail "the desktop's own timer changed"
# And counted in the desktop's report up to now, as the laptop counts it.
sleep 3
week_total() { ctl "$1" report --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])'; }
total_a="$(week_total a)"; total_b="$(week_total b)"
elapsed="$(ctl a status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["elapsed"])')"
[ "$elapsed" -ge 3 ] || fail "the laptop's session shows $elapsed s after 3 s"
[ $((total_a - total_b)) -le 1 ] && [ $((total_b - total_a)) -le 1 ] \
    || fail "the desktop's week ($total_b s) does not count the laptop's running session as the laptop does ($total_a s)"
ctl a stop >/dev/null
wait_until 10 "both agents converge" same_view
ctl b sync status | grep -q laptop || fail "sync status does not list the laptop"
# Bad input changes nothing: a folder whose parent does not exist is refused by name.
out="$(ctl b sync enable "$work/no/such/parent" 2>&1)" && fail "enabling a folder without a parent was accepted"
grep -q "does not exist" <<<"$out" || fail "unclear refusal: $out"
[ "$(ctl b sync status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["folder"])')" = "$work/shared" ] \
    || fail "a refused EnableSync changed the sync folder"
# A damaged line in the laptop's file is never applied; it is reported once it stays.
laptop_file="$(grep -l '"name":"laptop"' "$work"/shared/time-tracker/*/changes-000001.jsonl)"
printf 'damaged {"dev":\n' >>"$laptop_file"
sync_error() { [ "$(ctl b sync status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')" = error ]; }
wait_until 15 "the desktop reports the damaged file" sync_error
ctl b sync status | grep -q "damaged" || fail "SyncMessage does not say what is wrong"
stop_agent a; stop_agent b

say "-- 2. two real Syncthing instances on 127.0.0.1"
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
declare -A st_id=() st_listen=() st_gui=()
for d in a b; do
    syncthing generate --home="$work/st-$d" --no-default-folder --skip-port-probing >/dev/null 2>&1
    st_id[$d]="$(syncthing serve --home="$work/st-$d" --device-id 2>/dev/null)"
    st_listen[$d]="$(port)"; st_gui[$d]="$(port)"
    mkdir -p "$work/st-$d/Sync/.stfolder"
done
for d in a b; do
    peer=$([ $d = a ] && echo b || echo a)
    python3 scripts/sync/syncthing-config.py "$work/st-$d/config.xml" "${st_listen[$d]}" "${st_gui[$d]}" \
        "$work/st-$d/Sync" "${st_id[$peer]}" "${st_listen[$peer]}"
    grep -qE '<address>[^<]*(0\.0\.0\.0|\[::\]|default)' "$work/st-$d/config.xml" && fail "Syncthing would listen beyond 127.0.0.1"
    STNODEFAULTFOLDER=1 STNOUPGRADE=1 syncthing serve --home="$work/st-$d" --no-browser --no-restart \
        --logfile="$work/syncthing-$d.log" >/dev/null 2>&1 &
    stpids+=($!)
done
start_agent a "$work/data-a2"; start_agent b "$work/data-b2"
ctl a sync enable "$work/st-a/Sync" --name laptop >/dev/null
ctl b sync enable "$work/st-b/Sync" --name desktop >/dev/null
ctl a projects add Writing >/dev/null
ctl b projects add Reviews >/dev/null
wait_until 60 "the first projects cross Syncthing" bash -c "[ \"\$(DBUS_SESSION_BUS_ADDRESS='${bus[a]}' '$BIN/timectl' projects --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')\" = 2 ]"

say "   a day of mixed work on both ($steps steps each), the laptop's agent killed -9 half-way"
acknowledged=()
for i in $(seq 1 "$steps"); do
    minute=$((i * 4))
    at_a=$(printf '%02d:%02d' $((6 + minute / 60)) $((minute % 60)))
    at_b=$(printf '%02d:%02d' $((14 + minute / 60)) $((minute % 60)))
    if ctl a add Writing --start "yesterday $at_a" --duration 3m --note "a$i" >/dev/null; then acknowledged+=("a$i"); fi
    if ctl b add Reviews --start "yesterday $at_b" --duration 3m --note "b$i" >/dev/null; then acknowledged+=("b$i"); fi
    case $((i % 6)) in
        1) ctl a start Writing >/dev/null ;;
        2) ctl a note "working" >/dev/null ;;
        3) ctl a stop >/dev/null ;;
        4) ctl b start Reviews >/dev/null; ctl b stop >/dev/null ;;
        5) ctl b start Reviews >/dev/null; ctl b note "b note $i" >/dev/null; ctl b stop >/dev/null ;;
    esac
    if [ "$i" = $((steps / 2)) ]; then
        kill -9 "${agentpid[a]}"; wait "${agentpid[a]}" 2>/dev/null || true; unset "agentpid[a]"
        start_agent a "$work/data-a2"
    fi
done
ctl a stop >/dev/null 2>&1 || true
wait_until 60 "both devices converge through Syncthing" same_view
for note in "${acknowledged[@]}"; do
    has_note a "$note" || fail "acknowledged change $note is missing on the laptop"
    has_note b "$note" || fail "acknowledged change $note is missing on the desktop"
done
[ "$(ctl a sync status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')" = ok ] || fail "sync state is not ok"
say "sync: ${#acknowledged[@]} acknowledged changes on both devices, converged"
