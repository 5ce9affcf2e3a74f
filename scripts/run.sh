#!/usr/bin/env bash
# Builds time-agent and timectl (release) and runs the agent on your session bus, or, when
# there is none (a plain console or SSH), on a private bus whose address it prints.
# Arguments are passed to time-agent (see: scripts/run.sh --help).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES dbus-daemon

say "Building time-agent and timectl (release)…"
swift build -c release --product time-agent >&2
swift build -c release --product timectl >&2
bin="$(swift build -c release --show-bin-path)"

if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] && [ -S "/run/user/$(id -u)/bus" ]; then
    export DBUS_SESSION_BUS_ADDRESS="unix:path=/run/user/$(id -u)/bus"
fi
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
    address_file="$(mktemp)"
    dbus-daemon --session --fork --print-address=1 --print-pid=1 > "$address_file"
    DBUS_SESSION_BUS_ADDRESS="$(sed -n 1p "$address_file")"
    bus_pid="$(sed -n 2p "$address_file")"
    rm -f "$address_file"
    export DBUS_SESSION_BUS_ADDRESS
    trap 'kill "$bus_pid" 2>/dev/null' EXIT
    say "No session bus was running, so a private one was started. In another terminal:"
    say "    export DBUS_SESSION_BUS_ADDRESS='$DBUS_SESSION_BUS_ADDRESS'"
    say "    $bin/timectl status"
fi
say "Starting time-agent (Ctrl-C stops it). Try: $bin/timectl start Writing"
"$bin/time-agent" "$@"
