#!/usr/bin/env bash
# The tray on GNOME Shell 43 with the AppIndicator extension (Debian's 46, the code Ubuntu
# ships), headless: `gnome-shell --headless --wayland --virtual-monitor` on private session and
# system buses, driven and read through org.gnome.Shell.Eval (--unsafe-mode) by
# scripts/tray-host-check.py. Run by scripts/test-tray.sh:
#   scripts/tray-gnome.sh BIN OUTPUT      BIN holds the built time-agent and timectl; the
#                                         screenshot goes to OUTPUT/tray-gnome.png
# Checks: our item is in the top bar with its label and our icon drawn (the extension loaded our
# SVG; no box for a missing image or glyph); the label follows Pause and Resume; after every kind
# of change each entry of the extension's menu has the text, enabled state and mark the agent
# means; Pause chosen in that menu pauses; a focus phase shows in the label (◔ 25 min) and the
# Focus submenu's Skip and Stop focus work; the item survives an agent restart and the
# extension's own refresh of its Id and Menu; and ten logins
# (shell and agent started at the same moment) give ten items.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/bus-waits.sh
. scripts/tray-common.sh
bin="${1:?usage: scripts/tray-gnome.sh BIN OUTPUT}" output="${2:?usage: scripts/tray-gnome.sh BIN OUTPUT}"

begin_host_check gnome "GNOME Shell"
private_home "$bin"
unset DISPLAY

# A private system bus (the shell asks logind, accounts and more there; none answers, as on a
# machine without them) and a session bus per login.
dbus-daemon --session --nofork --print-address=3 3>"$work/system-bus" >"$work/system-bus.log" 2>&1 &
pids+=($!)
wait_until 10 test -s "$work/system-bus" || fail "the private system bus did not start"
export DBUS_SYSTEM_BUS_ADDRESS="$(head -n1 "$work/system-bus")"

# start_login NAME [--with-agent]: a new session bus, then the shell (and the agent at the same
# moment, as an autostart does at a login). Sets bus_pid, shell_pid, agent_pid.
start_login() {
    local name="$1"
    rm -f "$work/$name-bus"
    dbus-daemon --session --nofork --print-address=3 3>"$work/$name-bus" >"$work/$name-bus.log" 2>&1 &
    bus_pid=$!
    pids+=($bus_pid)
    wait_until 10 test -s "$work/$name-bus" || fail "the session bus of $name did not start"
    export DBUS_SESSION_BUS_ADDRESS="$(head -n1 "$work/$name-bus")"
    gsettings set org.gnome.shell enabled-extensions "['ubuntu-appindicators@ubuntu.com']"
    gnome-shell --headless --wayland --no-x11 --virtual-monitor 1280x800 --unsafe-mode >"$work/$name-shell.log" 2>&1 &
    shell_pid=$!
    pids+=($shell_pid)
    agent_pid=""
    if [ "${2:-}" = --with-agent ]; then start_agent "$name"; fi
}
start_agent() {
    "$prefix/bin/time-agent" --data-dir "$work/data" --no-notifications --verbose >"$work/$1-agent.log" 2>&1 &
    agent_pid=$!
    pids+=($agent_pid)
    item="org.kde.StatusNotifierItem-$agent_pid-1"
}
end_login() { stop_pids "$bus_pid" "$shell_pid" ${agent_pid:+"$agent_pid"}; }

in_top_bar() { host_check gnome-items | grep -q "\"appindicator-$1\""; }
item_json() { host_check gnome-item --item "$item"; }
field() { sed -n "s/.*\"$1\": \(\"[^\"]*\"\|[^,}]*\).*/\1/p" <<<"$2" | sed 's/^"\(.*\)"$/\1/'; }
label_matches() { [[ "$(field label "$(item_json)")" =~ $1 ]]; }
icon_is() { [ "$(field iconFile "$(item_json)")" = "$prefix/share/icons/hicolor/symbolic/apps/io.github.timetracker.Time-$1-symbolic.svg" ]; }
check_menu() { host_check gnome-check --item "$item" --step "$1" >/dev/null || fail "the extension's menu is not what the agent means after $1 (above)"; }
timectl() { "$prefix/bin/timectl" "$@" >/dev/null; }

###############################################################################
say "-- GNOME Shell $(gnome-shell --version | awk '{print $3}') with the AppIndicator extension"
start_login main
wait_until 30 has_owner org.kde.StatusNotifierWatcher || fail "the AppIndicator extension did not take org.kde.StatusNotifierWatcher"
start_agent main
wait_until 15 has_owner io.github.timetracker.Time1 || fail "time-agent did not start"
timectl categories add Work
timectl projects add Writing --color '#2e7d32' --category Work
timectl projects add Reading --color '#c01c28'
timectl start Writing
wait_until 15 in_top_bar "$item" || fail "our item is not in the top bar"

# Drawn: the label with every glyph in the font, our icon loaded from where the agent said.
wait_until 10 label_matches '^▶ 0:0[0-9]$' || fail "the label is not ▶ 0:0x: $(item_json)"
wait_until 10 icon_is running || fail "the extension did not load our running icon: $(item_json)"
shown="$(item_json)"
[ "$(field unknownGlyphs "$shown")" = 0 ] || fail "the label has glyphs its font lacks (drawn as boxes): $shown"
[ "$(field accessibleName "$shown")" = "Time: Writing, running" ] || fail "the button's accessible name: $shown"
read -r x y w h < <(sed -n 's/.*"icon": \[\([0-9]*\), \([0-9]*\), \([0-9]*\), \([0-9]*\)\].*/\1 \2 \3 \4/p' <<<"$shown")
gdbus call --session --dest org.gnome.Shell.Screenshot --object-path /org/gnome/Shell/Screenshot \
    --method org.gnome.Shell.Screenshot.ScreenshotArea 0 0 1280 40 false "$work/bar.png" >/dev/null
ink="$(ink_in "$work/bar.png" "${w}x${h}+$x+$y")"
[ "$ink" -ge 20 ] && [ "$ink" -le 85 ] || fail "the icon's box is ${ink}% covered: not our stopwatch (an empty or a filled box?)"
[ "$(color_share_in "$work/bar.png" "${w}x${h}+$x+$y" '#2e7d32')" -le 1 ] || fail "the icon is in the project's colour: the fallback pixmap, not our symbolic icon"
check_menu "start"
say "GNOME: item in the top bar, label $(field label "$shown"), our icon drawn (${ink}% of its box), menu as meant"

timectl pause
wait_until 10 label_matches '^▮▮ 0:0[0-9]$' || fail "the label did not follow Pause: $(item_json)"
wait_until 10 icon_is paused || fail "the icon did not follow Pause: $(item_json)"
[ "$(field unknownGlyphs "$(item_json)")" = 0 ] || fail "the paused label has glyphs its font lacks: $(item_json)"
check_menu "pause"
timectl resume
wait_until 10 label_matches '^▶ 0:0[0-9]$' || fail "the label did not follow Resume: $(item_json)"
check_menu "resume"
timectl start Reading
check_menu "a switch to another project"
timectl reminders 90
check_menu "a reminder setting"
timectl undo
check_menu "undo"
timectl stop
wait_until 10 icon_is idle || fail "the icon did not follow Stop: $(item_json)"
check_menu "stop"
timectl start Writing
check_menu "a start after idle"

# The extension's own menu entry, clicked as a person clicks it.
menu="$(host_check gnome-menu --item "$item")"
for entry in Pause Stop Start "Show this week" Reminders; do
    grep -q "\"label\": \"$entry\"" <<<"$menu" || fail "the extension's menu lacks $entry: $menu"
done
host_check gnome-activate --item "$item" --label Pause >/dev/null || fail "no Pause in the extension's menu"
wait_until 10 state_is paused || fail "Pause chosen in the extension's menu did not pause (state $(agent_state))"
check_menu "Pause chosen in the extension's menu"
say "GNOME: the label and every menu entry followed start, pause, resume, switch, reminders, undo, stop; its Pause paused"

# The focus timer: the label is the phase and its minutes left, the title line says it too, and
# the Focus submenu's entries do what they say.
timectl focus Writing
wait_until 10 label_matches '^◔ 25 min$' || fail "the label does not show the focus phase: $(item_json)"
[ "$(field unknownGlyphs "$(item_json)")" = 0 ] || fail "the focus label has glyphs its font lacks: $(item_json)"
check_menu "a focus phase"
host_check gnome-menu --item "$item" | grep -q '· ◔ 25 min' || fail "the title line does not show the focus phase"
host_check gnome-activate --item "$item" --label Skip >/dev/null || fail "no Skip in the extension's Focus submenu"
wait_until 10 label_matches '^◔ break 5 min$' || fail "Skip in the Focus submenu did not start the break: $(item_json)"
wait_until 10 state_is paused || fail "the break did not pause the session (state $(agent_state))"
check_menu "a break"
host_check gnome-activate --item "$item" --label "Stop focus" >/dev/null || fail "no Stop focus in the extension's Focus submenu"
wait_until 10 label_matches '^▮▮ 0:0[0-9]$' || fail "Stop focus did not end the cycle: $(item_json)"
check_menu "a stopped focus cycle"
say "GNOME: the label showed the focus phase and the break (◔ 25 min, ◔ break 5 min); the Focus submenu's Skip and Stop focus worked"

# The screenshot: the top bar with our menu open.
read -r mx my mw mh < <(host_check gnome-open-menu --item "$item" | tr -d '[],')
sleep 1   # the menu's opening animation
left=$(( mx - 40 < 1280 - 560 ? mx - 40 : 1280 - 560 ))
gdbus call --session --dest org.gnome.Shell.Screenshot --object-path /org/gnome/Shell/Screenshot \
    --method org.gnome.Shell.Screenshot.ScreenshotArea "$left" 0 $(( 1280 - left )) $(( my + mh + 8 )) false "$output/tray-gnome.png" >/dev/null
[ "$(colors_in "$output/tray-gnome.png" "$(( 1280 - left ))x$(( my + mh ))+0+0")" -gt 8 ] || fail "the screenshot of the open menu is empty"
host_check gnome-close-menu --item "$item" >/dev/null

# The agent restarts: its new item takes the old one's place.
old="$item"
stop_pids "$agent_pid"
wait_until 10 bash -c "! /usr/bin/python3 scripts/tray-host-check.py gnome-items | grep -q '\"appindicator-$old\"'" \
    || fail "the stopped agent's item stayed in the top bar"
start_agent main-again
wait_until 15 in_top_bar "$item" || fail "the restarted agent's item did not appear"
wait_until 10 icon_is paused || fail "the restarted agent's item does not show the paused timer: $(item_json)"
check_menu "an agent restart"
say "GNOME: the item came back after an agent restart"

# The extension's watcher of our bus name reports it (at a login, often after the extension read
# the item): the extension clears the Id and Menu it holds and asks again, and its own refresh
# then fails. Unless the item tells them again, the button never gets ready (no icon, no label,
# no menu: a CI login saw it) or loses its menu.
[ "$(host_check gnome-name-appeared --item "$item")" != null ] || fail "the extension does not watch our bus name"
identity_back() { [ "$(host_check gnome-identity --item "$item")" = '{"id": "time-tracker", "menuPath": "/MenuBar", "ready": true}' ]; }
wait_until 10 identity_back || fail "the extension lost the item's Id and Menu when it saw our name again: $(host_check gnome-identity --item "$item")"
check_menu "the extension saw our bus name again"
say "GNOME: the item kept its Id and Menu when the extension saw our bus name again"
end_login

# Logins: the shell and the agent start at the same moment, ten times (TIME_TRAY_LOGINS); each
# time the item must end up in the top bar (an item no host read a few seconds after registering
# registers again).
logins="${TIME_TRAY_LOGINS:-10}"   # scripts/stress.sh asks for more
shown=0 again=0 told=0
for ((login = 1; login <= logins; login++)); do
    start_login "login$login" --with-agent
    wait_until 30 in_top_bar "$item" || fail "login $login: the item never appeared in the top bar (agent log: $work/login$login-agent.log)"
    wait_until 10 icon_is paused || fail "login $login: the item shows no icon of ours: $(item_json)"
    shown=$((shown + 1))
    grep -q "registering again" "$work/login$login-agent.log" && again=$((again + 1))
    end_login
    grep -q "Impossible to get basic properties" "$work/login$login-shell.log" && told=$((told + 1))
done
say "GNOME: $shown of $logins logins showed the item ($again needed a second registration; in $told the extension lost the Id and Menu and was told them again)"
