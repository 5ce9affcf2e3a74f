#!/usr/bin/env bash
# Run by scripts/test-tray.sh as an unprivileged user (sway refuses root), with a clean
# environment: a private session bus, headless sway, waybar with its tray and our custom module,
# and the agent. Argument: the folder test-tray.sh prepared. Leaves tray-waybar.png there.
set -euo pipefail
dir="$1"
pids=()
cleanup() {
    local index
    for ((index = ${#pids[@]} - 1; index >= 0; index--)); do kill "${pids[index]}" 2>/dev/null || true; done
    for index in "${pids[@]}"; do wait "$index" 2>/dev/null || true; done
}
trap cleanup EXIT
say() { printf '%s\n' "$*" >&2; }
fail() { say "waybar check failed: $*"; for log in "$dir"/*.log; do say "--- $log"; tail -n 15 "$log" >&2; done; exit 1; }
# shellcheck source=scripts/bus-waits.sh
. "$(dirname "$0")/bus-waits.sh"
# shellcheck source=scripts/tray-common.sh
. "$(dirname "$0")/tray-common.sh"

dbus-daemon --session --nofork --print-address=3 3>"$dir/bus-address" >"$dir/bus.log" 2>&1 &
pids+=($!)
wait_until 10 test -s "$dir/bus-address" || fail "the private session bus did not start"
export DBUS_SESSION_BUS_ADDRESS="$(head -n1 "$dir/bus-address")"

WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman sway -c "$dir/sway.config" >"$dir/sway.log" 2>&1 &
pids+=($!)
socket() { ls "$XDG_RUNTIME_DIR" | grep -E '^wayland-[0-9]+$' | head -n1; }
socket_ready() { [ -n "$(socket)" ]; }
wait_until 20 socket_ready || fail "sway did not start"
export WAYLAND_DISPLAY="$(socket)"

"$dir/bin/time-agent" --data-dir "$dir/data" --no-notifications --verbose >"$dir/agent.log" 2>&1 &
agent=$!
pids+=($agent)
wait_until 15 has_owner io.github.timetracker.Time1 || fail "time-agent did not start"
timectl projects add Writing --color '#2e7d32' >/dev/null
timectl start Writing >/dev/null

start_waybar() {
    waybar -c "$dir/waybar.jsonc" -s "$dir/style.css" >>"$dir/waybar.log" 2>&1 &
    waybar_pid=$!
    pids+=($waybar_pid)
}
start_waybar
wait_until 20 has_owner org.kde.StatusNotifierWatcher || fail "waybar did not take org.kde.StatusNotifierWatcher"
wait_until 15 is_registered "$agent" || fail "the item did not register with waybar's watcher"
shot() { grim "$dir/$1.png" && [ "$(colors_in "$dir/$1.png" 200x30+440+0)" -gt 2 ]; }
wait_until 15 shot first || fail "waybar's tray shows no icon"
[ "$(color_share_in "$dir/first.png" 200x30+440+0 '#2e7d32')" -le 1 ] \
    || fail "waybar shows the fallback pixmap (the project's colour), not our icon from $dir/share/icons"

# waybar restarts: its watcher goes away and comes back; the item registers again and is drawn again.
kill "$waybar_pid"; wait "$waybar_pid" 2>/dev/null || true
wait_until 10 bash -c '! dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.kde.StatusNotifierWatcher | grep -q "boolean true"' \
    || fail "waybar's watcher did not go away"
start_waybar
wait_until 20 has_owner org.kde.StatusNotifierWatcher || fail "the restarted waybar did not take the watcher's name"
wait_until 15 is_registered "$agent" || fail "the item did not register again after waybar restarted"
wait_until 15 shot again || fail "the restarted waybar shows no icon"
# Our custom module (desktop/waybar) runs timectl watch and shows the running project on the left.
wait_until 10 pgrep -u "$(id -u)" -f "timectl watch --format waybar" || fail "waybar did not start the custom/time module"
custom_shown() { grim "$dir/custom.png" && [ "$(colors_in "$dir/custom.png" 160x30+0+0)" -gt 2 ]; }
wait_until 10 custom_shown || fail "the custom/time module shows nothing"
sleep 0.5
grim -g "0,0 640x30" "$dir/tray-waybar.png"
say "waybar: item registered, registered again after a waybar restart, icon and custom module drawn"
