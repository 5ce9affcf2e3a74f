#!/usr/bin/env bash
# The tray on KDE Plasma 5.27's system tray, headless: Xvfb, kded5's statusnotifierwatcher and
# `plasmawindowed org.kde.plasma.systemtray` (the applet Plasma's panel holds) on a private
# session bus; read over AT-SPI by scripts/tray-host-check.py, clicked with xdotool.
# Run by scripts/test-tray.sh:
#   scripts/tray-plasma.sh BIN OUTPUT     BIN holds the built time-agent and timectl; the
#                                         screenshot goes to OUTPUT/tray-plasma.png
# Checks: the item shows our icon (not the coloured fallback), its title and tooltip, and
# follows the timer (Plasma re-reads only on the New* signals); a left click toggles the timer;
# after every kind of change the menu Plasma opens has the entries, texts and enabled states
# the agent means (Stop enabled while paused).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/bus-waits.sh
. scripts/tray-common.sh
bin="${1:?usage: scripts/tray-plasma.sh BIN OUTPUT}" output="${2:?usage: scripts/tray-plasma.sh BIN OUTPUT}"

begin_host_check plasma "Plasma"
private_home "$bin"

# The display first: what the bus starts on demand (kded's helpers) inherits its DISPLAY;
# -noreset keeps the root window's properties (AT_SPI_BUS below) when its last client leaves.
Xvfb -displayfd 3 -screen 0 640x480x24 -nolisten tcp -noreset 3>"$work/display" >"$work/xvfb.log" 2>&1 &
pids+=($!)
wait_until 10 test -s "$work/display" || fail "Xvfb did not start"
export DISPLAY=":$(head -n1 "$work/display")"
dbus-daemon --session --nofork --print-address=3 3>"$work/bus" >"$work/bus.log" 2>&1 &
pids+=($!)
wait_until 10 test -s "$work/bus" || fail "the private session bus did not start"
export DBUS_SESSION_BUS_ADDRESS="$(head -n1 "$work/bus")"

# The accessibility bus, switched on. Qt asks for its address on the session bus, which fails
# for a process running as root (as CI does), and then takes it from the root window's
# AT_SPI_BUS property, which the launcher sets only when started by the session itself.
/usr/libexec/at-spi-bus-launcher --launch-immediately >"$work/at-spi.log" 2>&1 &
pids+=($!)
wait_until 10 has_owner org.a11y.Bus || fail "at-spi-bus-launcher did not start"
a11y_bus="$(gdbus call --session --dest org.a11y.Bus --object-path /org/a11y/bus --method org.a11y.Bus.GetAddress | sed "s/^('\(.*\)',)$/\1/")"
xprop -root -f AT_SPI_BUS 8s -set AT_SPI_BUS "$a11y_bus"
gdbus call --session --dest org.a11y.Bus --object-path /org/a11y/bus --method org.freedesktop.DBus.Properties.Set \
    org.a11y.Status IsEnabled '<true>' >/dev/null

# kded5 holds Plasma's StatusNotifierWatcher. loadModule answers only after its own timeout,
# and one sent while kded is still starting its other modules is lost: ask until it is there.
QT_QPA_PLATFORM=offscreen kded5 >"$work/kded.log" 2>&1 &
pids+=($!)
wait_until 20 has_owner org.kde.kded5 || fail "kded5 did not start"
load_watcher() {
    timeout 3 gdbus call --session --dest org.kde.kded5 --object-path /kded --method org.kde.kded5.loadModule \
        statusnotifierwatcher >/dev/null 2>&1 || true
    has_owner org.kde.StatusNotifierWatcher
}
wait_until 40 load_watcher || fail "kded5 did not load statusnotifierwatcher (org.kde.StatusNotifierWatcher)"
QT_QPA_PLATFORM=xcb plasmawindowed org.kde.plasma.systemtray >"$work/plasma.log" 2>&1 &
pids+=($!)

"$prefix/bin/time-agent" --data-dir "$work/data" --no-notifications --verbose >"$work/agent.log" 2>&1 &
agent=$!
pids+=($agent)
item="org.kde.StatusNotifierItem-$agent-1"
wait_until 15 has_owner io.github.timetracker.Time1 || fail "time-agent did not start"
timectl() { "$prefix/bin/timectl" "$@" >/dev/null; }
timectl categories add Work
timectl projects add Writing --color '#2e7d32' --category Work
timectl projects add Reading --color '#c01c28'
timectl start Writing
wait_until 15 is_registered "$agent" || fail "the item did not register with kded5's watcher"

plasma_item() { host_check plasma-item; }
titled() { plasma_item | grep -q "\"name\": \"$1\""; }
field() { sed -n "s/.*\"$1\": \(\"[^\"]*\"\|[^,}]*\).*/\1/p" <<<"$2" | sed 's/^"\(.*\)"$/\1/'; }
check_menu() { host_check plasma-check --item "$item" --step "$1" >/dev/null || fail "Plasma's menu is not what the agent means after $1 (above)"; }
# A picture of the item's button.
icon_shot() {
    local shown x y w h
    shown="$(plasma_item)"
    read -r x y w h < <(sed -n 's/.*"extents": \[\([0-9]*\), \([0-9]*\), \([0-9]*\), \([0-9]*\)\].*/\1 \2 \3 \4/p' <<<"$shown")
    import -window root "$work/screen.png"
    convert "$work/screen.png" -crop "${w}x${h}+$x+$y" +repage "$1"
}
pictures_differ() { [ "$(compare -metric AE "$1" "$2" null: 2>&1 || true)" != 0 ]; }

wait_until 30 titled "Time: Writing" || fail "Plasma's tray shows no item titled \"Time: Writing\" (AT-SPI: $(plasma_item))"
shown="$(plasma_item)"
grep -q '"description": "<b>Writing</b>\\nWork\\n0:0[0-9], since ' <<<"$shown" \
    || fail "the tooltip is not the project, its category and since when: $shown"
wait_until 10 icon_shot "$work/running.png" || fail "no picture of the item"
ink="$(ink_in "$work/running.png" "$(convert "$work/running.png" -format '%wx%h+0+0' info:)")"
[ "$ink" -ge 10 ] && [ "$ink" -le 85 ] || fail "the item's button is ${ink}% covered: no icon of ours"
[ "$(color_share_in "$work/running.png" "$(convert "$work/running.png" -format '%wx%h+0+0' info:)" '#2e7d32')" -le 1 ] \
    || fail "the icon is in the project's colour: Plasma fell back to the pixmap instead of our symbolic icon"
check_menu "start"
say "Plasma: item titled $(field name "$shown"), its tooltip and our icon shown (${ink}% of its box), menu as meant"

timectl pause
wait_until 10 bash -c "/usr/bin/python3 scripts/tray-host-check.py plasma-item | grep -q 'paused since '" \
    || fail "the tooltip did not follow Pause: $(plasma_item)"
paused_icon() { icon_shot "$work/paused.png" && pictures_differ "$work/running.png" "$work/paused.png"; }
wait_until 10 paused_icon || fail "the icon did not follow Pause"
check_menu "pause"

# A left click is Activate: the timer toggles.
read -r x y w h < <(sed -n 's/.*"extents": \[\([0-9]*\), \([0-9]*\), \([0-9]*\), \([0-9]*\)\].*/\1 \2 \3 \4/p' <<<"$(plasma_item)")
xdotool mousemove $(( x + w / 2 )) $(( y + h / 2 )) click 1
wait_until 10 state_is running || fail "a left click on the item did not resume the timer (state $(agent_state))"
check_menu "a left click (resume)"
xdotool mousemove $(( x + w / 2 )) $(( y + h / 2 )) click 1
wait_until 10 state_is paused || fail "a second left click did not pause the timer (state $(agent_state))"
check_menu "a second left click (pause)"
timectl resume
check_menu "resume"
timectl start Reading
wait_until 10 titled "Time: Reading" || fail "the title did not follow a switch: $(plasma_item)"
check_menu "a switch to another project"
timectl reminders 90
check_menu "a reminder setting"
timectl undo
check_menu "undo"
timectl stop
wait_until 10 titled "Time" || fail "the title did not follow Stop: $(plasma_item)"
check_menu "stop"
timectl start Writing
check_menu "a start after idle"
timectl pause
check_menu "pause after idle"
say "Plasma: title, tooltip, icon and every menu entry followed the timer; left clicks toggled it"

# The screenshot: the tray with our menu open.
xdotool mousemove $(( x + w / 2 )) $(( y + h / 2 )) click 3
menu_open() { import -window root "$work/menu.png" && [ "$(colors_in "$work/menu.png" 300x200+$(( x + w / 2 ))+$(( y + h / 2 )))" -gt 8 ]; }
wait_until 10 menu_open || fail "a right click opened no menu"
sleep 0.5   # its entries arrive one layout call after its frame
import -window root "$work/menu.png"
# The tray window and its menu, on a dark grey instead of Xvfb's black root window.
convert "$work/menu.png" -trim +repage -fill '#31363b' -opaque black "$output/tray-plasma.png"
xdotool key Escape
