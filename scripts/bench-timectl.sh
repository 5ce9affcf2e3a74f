#!/usr/bin/env bash
# timectl as whole processes (what a keyboard shortcut pays), side by side with dbus-send making
# the same D-Bus call to the same agent, measured by hyperfine (one command's runs after the
# other's) and then in turn (medians):
#   scripts/bench-timectl.sh [release|debug] [--quick]
# Called by scripts/bench.sh. The agent runs on a private session bus with a throw-away data folder.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES dbus-daemon dbus-bin hyperfine

configuration=${1:-release}
runs=100
[ "${2:-}" = --quick ] && runs=5
swift build -c "$configuration" --product time-agent >&2
swift build -c "$configuration" --product timectl >&2
bin="$(swift build -c "$configuration" --show-bin-path)"

work="$(mktemp -d /tmp/time-bench-timectl.XXXXXX)"
daemon=""
cleanup() {
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/services" "$work/data"
cat >"$work/services/io.github.timetracker.Time1.service" <<EOF
[D-BUS Service]
Name=io.github.timetracker.Time1
Exec=$bin/time-agent --data-dir $work/data --no-notifications
EOF
cat >"$work/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$work/bus</listen>
  <servicedir>$work/services</servicedir>
  <policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy>
</busconfig>
EOF
daemon="$(dbus-daemon --config-file="$work/bus.conf" --fork --print-pid)"
export DBUS_SESSION_BUS_ADDRESS="unix:path=$work/bus" TIME_TRACKER_DATA_DIR="$work/data"

timectl="$bin/timectl"
send="dbus-send --session --print-reply --dest=io.github.timetracker.Time1 /io/github/timetracker/Time1 io.github.timetracker.Time1"
"$timectl" start Writing >/dev/null 2>&1   # activates the agent and creates the project

# What each loads before its first instruction: timectl loads glibc alone (Package.swift).
libraries() { { ldd "$1" 2>/dev/null || true; } | grep -c '=>' || true; }
say "shared libraries loaded: timectl $(libraries "$timectl"), dbus-send $(libraries "$(command -v dbus-send)")"
say "timectl ($configuration build) against dbus-send, same agent, $runs runs each:"
compare() {   # name, timectl arguments, D-Bus call, [prepare command]
    local name=$1 mine=$2 theirs=$3 prepare=${4:-}
    local options=(-N --warmup 3 --runs "$runs" --style basic)
    [ -n "$prepare" ] && options+=(--prepare "$prepare")
    say "== $name"
    hyperfine "${options[@]}" -n "timectl $mine" "$timectl $mine" -n "dbus-send $theirs" "$send.$theirs" >&2
    in_turn "$mine" "$theirs" "$prepare"
}

# hyperfine runs one command all its runs, then the other: a neighbour's build starting in
# between moves one mean and not the other. Here the two take turns (which goes first alternates),
# and the medians are compared.
in_turn() {   # timectl arguments, D-Bus call, [prepare command]
    local mine=$1 theirs=$2 prepare=$3 i start end
    local -a ours=() dbus=()
    run_once() {   # command words…; prints microseconds
        [ -n "$prepare" ] && $prepare >/dev/null 2>&1
        start=$EPOCHREALTIME
        "$@" >/dev/null 2>&1 || true
        end=$EPOCHREALTIME
        echo $(( ${end/./} - ${start/./} ))
    }
    for ((i = 0; i < runs; i++)); do
        # shellcheck disable=SC2086
        if ((i % 2)); then
            ours+=("$(run_once $timectl $mine)"); dbus+=("$(run_once $send.$theirs)")
        else
            dbus+=("$(run_once $send.$theirs)"); ours+=("$(run_once $timectl $mine)")
        fi
    done
    quartiles() { sort -n | awk '{ v[NR] = $1 } END { printf "median %.1f ms (quartiles %.1f, %.1f)", v[int((NR + 1) / 2)] / 1000, v[int((NR + 3) / 4)] / 1000, v[int((3 * NR + 3) / 4)] / 1000 }'; }
    say "  in turn, $runs runs each: timectl $(printf '%s\n' "${ours[@]}" | quartiles); dbus-send $(printf '%s\n' "${dbus[@]}" | quartiles)"
}
compare toggle "toggle" "Toggle"
compare start "start Writing" "StartProject string:Writing"
compare stop "stop" "Stop" "$send.StartProject string:Writing"
compare status "status" "GetStatus"
