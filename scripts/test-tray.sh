#!/usr/bin/env bash
# The tray icon on real panels, all headless:
#   1. xfce4-panel's systray plugin under Xvfb (its StatusNotifierWatcher and host, menus through
#      libdbusmenu-gtk3): the icon appears, a right click opens our menu, choosing Pause pauses
#      the timer and the icon changes.
#   2. waybar's tray under headless sway (as a throwaway user when run as root: sway refuses
#      root): waybar owns the watcher, the item registers, registers again after a waybar
#      restart, and our desktop/waybar custom module runs next to it.
# The week's chart is drawn too (timectl report --png). Pictures go to $TIME_TEST_OUTPUT (default
# .build/test-output); --update-docs also copies them to docs/tray-xfce.png, docs/tray-waybar.png
# and docs/week.png. --no-build uses the existing debug build.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift

build=1 update_docs=0
for argument in "$@"; do
    case "$argument" in
        --no-build) build=0 ;;
        --update-docs) update_docs=1 ;;
        *) say "usage: scripts/test-tray.sh [--no-build] [--update-docs]"; exit 2 ;;
    esac
done
# shellcheck disable=SC2086
ensure_packages $TRAY_PACKAGES
[ "$build" -eq 1 ] && swift build >&2
bin="$(swift build --show-bin-path)"
output="${TIME_TEST_OUTPUT:-$PWD/.build/test-output}"
mkdir -p "$output"

work="$(mktemp -d /tmp/time-tray.XXXXXX)"
chmod 755 "$work"
pids=()
user=""
cleanup() {
    local index
    for ((index = ${#pids[@]} - 1; index >= 0; index--)); do kill "${pids[index]}" 2>/dev/null || true; done
    for index in "${pids[@]}"; do wait "$index" 2>/dev/null || true; done
    if [ -n "$user" ]; then
        pkill -KILL -u "$user" 2>/dev/null || true
        userdel "$user" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
fail() { say "tray check failed: $*"; for log in "$work"/*.log "$work"/*/*.log; do [ -f "$log" ] && { say "--- $log"; tail -n 20 "$log" >&2; }; done; exit 1; }

. scripts/bus-waits.sh
registered_items() {
    dbus-send --session --print-reply --dest=org.kde.StatusNotifierWatcher /StatusNotifierWatcher \
        org.freedesktop.DBus.Properties.Get string:org.kde.StatusNotifierWatcher string:RegisteredStatusNotifierItems
}
is_registered() { registered_items | grep -q "StatusNotifierItem-$1-1"; }
agent_state() {
    dbus-send --session --print-reply --dest=io.github.timetracker.Time1 /io/github/timetracker/Time1 \
        org.freedesktop.DBus.Properties.Get string:io.github.timetracker.Time1 string:State | sed -n 's/.*string "\(.*\)"/\1/p'
}
state_is() { [ "$(agent_state)" = "$1" ]; }
# Number of distinct colors in a region of a screenshot: 1 means empty.
colors_in() { convert "$1" -crop "$2" +repage -format '%k' info:; }

###############################################################################
say "== Tray on xfce4-panel (systray plugin) under Xvfb"
xfce="$work/xfce"
mkdir -p "$xfce/config/xfce4/xfconf/xfce-perchannel-xml" "$xfce/home" "$xfce/runtime"
chmod 700 "$xfce/runtime"
# One panel along the top holding only the notification area.
cat > "$xfce/config/xfce4/xfconf/xfce-perchannel-xml/xfce4-panel.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="32"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="systray"/>
  </property>
</channel>
XML
(
    export HOME="$xfce/home" XDG_CONFIG_HOME="$xfce/config" XDG_RUNTIME_DIR="$xfce/runtime" TZ=UTC NO_AT_BRIDGE=1 GTK_A11Y=none
    exec dbus-daemon --session --nofork --print-address=3 3>"$xfce/bus-address"
) >"$xfce/bus.log" 2>&1 &
pids+=($!)
wait_until 10 test -s "$xfce/bus-address" || fail "the private session bus did not start"
Xvfb -displayfd 3 -screen 0 480x220x24 -nolisten tcp 3>"$xfce/display" >"$xfce/xvfb.log" 2>&1 &
pids+=($!)
wait_until 10 test -s "$xfce/display" || fail "Xvfb did not start"
export DBUS_SESSION_BUS_ADDRESS="$(head -n1 "$xfce/bus-address")" DISPLAY=":$(head -n1 "$xfce/display")"
export HOME="$xfce/home" XDG_CONFIG_HOME="$xfce/config" XDG_RUNTIME_DIR="$xfce/runtime" TZ=UTC NO_AT_BRIDGE=1 GTK_A11Y=none
xfce4-panel --disable-wm-check >"$xfce/panel.log" 2>&1 &
pids+=($!)
wait_until 30 has_owner org.kde.StatusNotifierWatcher || fail "xfce4-panel's systray did not take org.kde.StatusNotifierWatcher"

"$bin/time-agent" --data-dir "$xfce/data" --no-notifications --verbose >"$xfce/agent.log" 2>&1 &
agent=$!
pids+=($agent)
wait_until 15 has_owner io.github.timetracker.Time1 || fail "time-agent did not start"
"$bin/timectl" categories add Work >/dev/null
"$bin/timectl" projects add Writing --color '#2e7d32' --category Work >/dev/null
"$bin/timectl" start Writing >/dev/null
wait_until 15 is_registered "$agent" || fail "the item did not register with xfce4-panel's watcher"
icon_shown() { import -window root "$xfce/icon.png" && [ "$(colors_in "$xfce/icon.png" 28x28+2+2)" -gt 2 ]; }
wait_until 15 icon_shown || fail "xfce4-panel shows no icon"
cp "$xfce/icon.png" "$xfce/running.png"

# A right click opens our menu (libdbusmenu-gtk3 reads it from /MenuBar): wait until it is drawn,
# then keep its picture. The first entry is the disabled title, so Down selects Pause.
xdotool mousemove 12 16 click 3
menu_shown() { import -window root "$xfce/menu.png" && [ "$(colors_in "$xfce/menu.png" 200x120+0+40)" -gt 2 ]; }
wait_until 10 menu_shown || fail "a right click on the icon opened no menu"
sleep 0.5   # the menu's entries arrive one group call after its frame
import -window root "$output/tray-xfce.png"
xdotool key Down Return
wait_until 10 state_is paused || fail "choosing Pause in xfce4-panel's menu did not pause the timer (state $(agent_state))"
icon_changed() {
    import -window root "$xfce/paused.png" &&
        [ "$(compare -metric AE <(convert "$xfce/running.png" -crop 28x28+2+2 +repage png:-) \
             <(convert "$xfce/paused.png" -crop 28x28+2+2 +repage png:-) null: 2>&1 || true)" != "0" ]
}
wait_until 10 icon_changed || fail "the icon did not change when the timer paused"
# A left click is Activate: Toggle.
xdotool mousemove 12 16 click 1
wait_until 10 state_is running || fail "a left click on the icon did not resume the timer (state $(agent_state))"
say "xfce4-panel: icon shown, menu opened by a right click, Pause chosen, icon changed, left click resumed"

# The week as a picture (docs/week.png): last week, filled through timectl, drawn by the agent.
monday="$(date -u -d "$(date -u +%F) -$(( $(date -u +%u) + 6 )) days" +%F)"
"$bin/timectl" projects add Code --color '#3465a4' >/dev/null
"$bin/timectl" projects add 'Email & admin' --color '#f57900' >/dev/null
add_session() { "$bin/timectl" add "$1" --start "$(date -u -d "$monday +$2 days" +%F) $3" --duration "$4" >/dev/null; }
add_session Writing 0 09:00 3h; add_session Code 0 13:00 2h30m; add_session 'Email & admin' 0 16:00 45m
add_session Writing 1 09:00 2h; add_session Code 1 11:30 4h
add_session Code 2 09:00 5h15m; add_session 'Email & admin' 2 15:00 1h
add_session Writing 3 10:00 4h30m; add_session 'Email & admin' 3 15:00 30m
add_session Code 4 09:00 3h; add_session Writing 4 13:00 1h15m
add_session Writing 5 10:00 1h30m
# The week by its ISO name (a date alone names that day's report).
"$bin/timectl" report "$(date -u -d "$monday" +%G-W%V)" --png "$output/week.png"
[ "$(colors_in "$output/week.png" 720x420+0+0)" -gt 8 ] || fail "timectl report --png wrote no chart"
kill "$agent"; wait "$agent" 2>/dev/null || true
unset DISPLAY DBUS_SESSION_BUS_ADDRESS HOME XDG_CONFIG_HOME XDG_RUNTIME_DIR NO_AT_BRIDGE GTK_A11Y

###############################################################################
say "== Tray and custom module on waybar under headless sway"
sway_dir="$work/sway"
mkdir -p "$sway_dir/bin" "$sway_dir/home/.config" "$sway_dir/runtime"
cp "$bin/time-agent" "$bin/timectl" "$sway_dir/bin/"
cp desktop/waybar/config.jsonc "$sway_dir/time-module.jsonc"
cat desktop/waybar/style.css > "$sway_dir/style.css"
cat >> "$sway_dir/style.css" <<'CSS'
* { font-family: "DejaVu Sans", sans-serif; font-size: 14px; }
window#waybar { background: #1e1e2e; color: #cdd6f4; }
#tray, #custom-time { padding: 0 10px; }
CSS
cat > "$sway_dir/waybar.jsonc" <<JSON
{
    "include": ["$sway_dir/time-module.jsonc"],
    "layer": "top",
    "position": "top",
    "height": 30,
    "modules-left": ["custom/time"],
    "modules-right": ["tray"],
    "tray": { "icon-size": 20, "spacing": 8 }
}
JSON
cat > "$sway_dir/sway.config" <<'SWAY'
output HEADLESS-1 resolution 640x120
default_border none
xwayland disable
SWAY
cp scripts/tray-waybar-session.sh "$sway_dir/session.sh"
cp scripts/bus-waits.sh "$sway_dir/bus-waits.sh"
if [ "$(id -u)" -eq 0 ]; then
    user="timetray$$"
    useradd --no-create-home --home-dir "$sway_dir/home" --shell /usr/sbin/nologin "$user"
    chown -R "$user:" "$sway_dir"
    run_as_user() { runuser -u "$user" -- "$@"; }
else
    run_as_user() { "$@"; }
fi
chmod 700 "$sway_dir/runtime"
run_as_user env -i PATH="$sway_dir/bin:/usr/local/bin:/usr/bin:/bin" HOME="$sway_dir/home" \
    XDG_RUNTIME_DIR="$sway_dir/runtime" XDG_CONFIG_HOME="$sway_dir/home/.config" TZ=UTC LANG=C.UTF-8 NO_AT_BRIDGE=1 GTK_A11Y=none \
    bash "$sway_dir/session.sh" "$sway_dir" || fail "waybar under sway (log above)"
cp "$sway_dir/tray-waybar.png" "$output/tray-waybar.png"

if [ "$update_docs" -eq 1 ]; then
    cp "$output/tray-xfce.png" docs/tray-xfce.png
    cp "$output/tray-waybar.png" docs/tray-waybar.png
    cp "$output/week.png" docs/week.png
    say "docs/tray-xfce.png, docs/tray-waybar.png and docs/week.png updated"
fi
say "Tray checks passed (screenshots in $output)."
