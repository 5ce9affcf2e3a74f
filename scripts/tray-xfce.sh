#!/usr/bin/env bash
# The tray on xfce4-panel's systray plugin under Xvfb (its StatusNotifierWatcher and host, menus
# through libdbusmenu-gtk3): our icon appears (from where the agent says, not the fallback
# pixmap), a right click opens our menu, choosing Pause pauses the timer and the icon changes, a
# left click resumes. The week's chart is drawn by the same agent (timectl report --png).
# Run by scripts/test-tray.sh:
#   scripts/tray-xfce.sh BIN OUTPUT      pictures: OUTPUT/tray-xfce.png, OUTPUT/week.png
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/bus-waits.sh
. scripts/tray-common.sh
bin="${1:?usage: scripts/tray-xfce.sh BIN OUTPUT}" output="${2:?usage: scripts/tray-xfce.sh BIN OUTPUT}"

begin_host_check xfce xfce4-panel

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

install_prefix "$bin" "$xfce/prefix"
"$xfce/prefix/bin/time-agent" --data-dir "$xfce/data" --no-notifications --verbose >"$xfce/agent.log" 2>&1 &
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
[ "$(color_share_in "$xfce/running.png" 28x28+2+2 '#2e7d32')" -le 1 ] \
    || fail "xfce4-panel shows the fallback pixmap (the project's colour), not our icon from $xfce/prefix/share/icons"

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
