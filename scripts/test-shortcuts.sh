#!/usr/bin/env bash
# Time's keyboard shortcut on real desktops, headless, set with `timectl shortcut set` (the code
# Preferences' Keyboard shortcut row uses) and proven by a key press where one can be made:
#   GNOME   gnome-shell --headless with gsd-media-keys (which grabs custom keybindings through the
#           shell): the key pressed through Mutter's RemoteDesktop NotifyKeyboardKeysym, as a real
#           keyboard, runs the command: the agent's timer toggles. Other custom keybindings stay.
#   Xfce    xfsettingsd on Xvfb (it grabs the xfce4-keyboard-shortcuts channel's keys): the key
#           pressed with xdotool (XTEST) toggles the timer.
#   KDE     kglobalaccel5 on Xvfb, started after the shortcut was written (kglobalaccel 5 reads
#           kglobalshortcutsrc and share/kglobalaccel/*.desktop at its start, as at a login): read
#           back with KDE's kreadconfig5 and kglobalaccel's own D-Bus answer; the key pressed with
#           xdotool toggles the timer.
# Each part: `timectl shortcut show` reads the key back from the desktop, `remove` removes it.
# One line per check (ok - / not ok -), then "N passed, M failed"; exit status 1 on a failure.
#   scripts/test-shortcuts.sh [--no-build] [--only gnome|xfce|kde]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/bus-waits.sh
ensure_swift

build=1 only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --only) only="${2:?--only needs gnome, xfce or kde}"; shift ;;
        -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) say "usage: scripts/test-shortcuts.sh [--no-build] [--only gnome|xfce|kde]"; exit 2 ;;
    esac
    shift
done
# shellcheck disable=SC2086
ensure_packages $SHORTCUT_PACKAGES
[ "$build" -eq 1 ] && swift build >&2
bin="$(swift build --show-bin-path)"

work="$(mktemp -d /tmp/time-shortcuts.XXXXXX)"
pids=()
cleanup() {
    local index
    for ((index = ${#pids[@]} - 1; index >= 0; index--)); do
        kill "${pids[$index]}" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
not_ok() {
    echo "not ok - $*"; failed=$((failed + 1))
    local log
    for log in "$part"/*.log; do [ -s "$log" ] && { echo "#   $log:"; grep -v '^\s*$' "$log" | tail -n 8 | sed 's/^/#     /'; }; done
}
check() { local what="$1"; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }

# new_part NAME: a fresh HOME, XDG folders, runtime folder and session bus (the standard
# configuration: dconf and xfconfd are started by it), and an agent with Writing used last.
new_part() {
    part="$work/$1"
    mkdir -p "$part/home" "$part/runtime"
    chmod 700 "$part/runtime"
    export HOME="$part/home" XDG_CONFIG_HOME="$part/home/.config" XDG_DATA_HOME="$part/home/.local/share" \
        XDG_CACHE_HOME="$part/home/.cache" XDG_RUNTIME_DIR="$part/runtime" TZ=UTC LANG=C.UTF-8
    unset WAYLAND_DISPLAY DISPLAY GSETTINGS_BACKEND
    dbus-daemon --session --nofork --print-address=3 3>"$part/bus" >"$part/bus.log" 2>&1 &
    pids+=($!)
    wait_until 10 test -s "$part/bus" || { not_ok "$1: the session bus started"; return 1; }
    export DBUS_SESSION_BUS_ADDRESS="$(head -n1 "$part/bus")"
    "$bin/time-agent" --data-dir "$part/data" --no-notifications --no-tray >"$part/agent.log" 2>&1 &
    pids+=($!)
    wait_until 15 has_owner io.github.timetracker.Time1 || { not_ok "$1: time-agent started"; return 1; }
    "$bin/timectl" projects add Writing >/dev/null && "$bin/timectl" start Writing >/dev/null && "$bin/timectl" stop >/dev/null
}
state() { "$bin/timectl" status --json 2>/dev/null | sed -n 's/.*"state": *"\([a-z]*\)".*/\1/p'; }
state_is() { [ "$(state)" = "$1" ]; }
toggles() { # toggles PRESS-COMMAND...: the press turns idle into running, and a second into paused
    state_is idle || return 1
    "$@" && wait_until 5 state_is running && "$@" && wait_until 5 state_is paused
}
shown_key() { "$bin/timectl" shortcut show --action toggle 2>&1 | grep -q "^toggle: $1 "; }

###############################################################################
gnome() {
    say "== GNOME Shell $(gnome-shell --version | awk '{print $3}') headless, gsd-media-keys, a key pressed through Mutter's RemoteDesktop"
    new_part gnome || return 0
    export XDG_CURRENT_DESKTOP=GNOME XDG_SESSION_TYPE=wayland
    # A private system bus: the shell asks logind and others there; none answers, as on a machine without them.
    dbus-daemon --session --nofork --print-address=3 3>"$part/system-bus" >"$part/system-bus.log" 2>&1 &
    pids+=($!)
    wait_until 10 test -s "$part/system-bus" || { not_ok "GNOME: the private system bus started"; return 0; }
    export DBUS_SYSTEM_BUS_ADDRESS="$(head -n1 "$part/system-bus")"
    # A custom shortcut of the person's own, which must stay.
    local own=/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/custom0/
    gsettings set org.gnome.settings-daemon.plugins.media-keys custom-keybindings "['$own']"
    gsettings set "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding:$own" binding '<Super>e'
    check "GNOME: timectl shortcut set '<Super>F9' writes it and reads it back" \
        eval '"$bin/timectl" shortcut set "<Super>F9" >"$part/set.out" 2>&1 && shown_key "Super+F9"'
    local list
    list="$(gsettings get org.gnome.settings-daemon.plugins.media-keys custom-keybindings)"
    check "GNOME: custom-keybindings keeps the person's own path beside ours ($list)" \
        eval '[[ $list == *"$own"* && $list == *"/time-tracker-toggle/"* ]]'

    pipewire >"$part/pipewire.log" 2>&1 &
    pids+=($!)
    gnome-shell --headless --wayland --no-x11 --virtual-monitor 1280x800 >"$part/shell.log" 2>&1 &
    pids+=($!)
    wait_until 30 has_owner org.gnome.Mutter.RemoteDesktop || { not_ok "GNOME: the shell started (RemoteDesktop)"; return 0; }
    wait_until 10 test -S "$XDG_RUNTIME_DIR/wayland-0" || { not_ok "GNOME: the shell's Wayland display"; return 0; }
    WAYLAND_DISPLAY=wayland-0 /usr/libexec/gsd-media-keys >"$part/media-keys.log" 2>&1 &
    pids+=($!)
    wait_until 20 has_owner org.gnome.SettingsDaemon.MediaKeys || { not_ok "GNOME: gsd-media-keys started"; return 0; }
    sleep 2  # its grabs go to the shell after it owns its name
    press() { /usr/bin/python3 -B scripts/shortcuts/gnome-press.py Super_L F9 >>"$part/press.log" 2>&1; }
    check "GNOME: Super+F9 pressed (RemoteDesktop) toggles the timer: idle -> running -> paused" toggles press
    "$bin/timectl" stop >/dev/null 2>&1 || true

    check "GNOME: timectl shortcut remove removes ours and keeps the person's own" \
        eval '"$bin/timectl" shortcut remove >/dev/null && [ "$(gsettings get org.gnome.settings-daemon.plugins.media-keys custom-keybindings)" = "['"'"'$own'"'"']" ]'
    unset DBUS_SYSTEM_BUS_ADDRESS XDG_SESSION_TYPE
}

###############################################################################
start_xvfb() {
    Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$part/display" >"$part/xvfb.log" 2>&1 &
    pids+=($!)
    wait_until 10 test -s "$part/display" || return 1
    export DISPLAY=":$(head -n1 "$part/display")"
}

xfce() {
    say "== Xfce: xfsettingsd $(xfsettingsd --version 2>/dev/null | head -n1 | awk '{print $2}') on Xvfb, a key pressed with xdotool"
    new_part xfce || return 0
    export XDG_CURRENT_DESKTOP=XFCE
    start_xvfb || { not_ok "Xfce: Xvfb started"; return 0; }
    xfconf-query -c xfce4-keyboard-shortcuts -p '/commands/custom/<Super>e' -n -t string -s thunar
    check "Xfce: timectl shortcut set '<Super>F9' writes it and reads it back" \
        eval '"$bin/timectl" shortcut set "<Super>F9" >"$part/set.out" 2>&1 && shown_key "Super+F9"'
    check "Xfce: xfconf-query reads /commands/custom/<Super>F9 as the Toggle call" \
        eval '[[ "$(xfconf-query -c xfce4-keyboard-shortcuts -p "/commands/custom/<Super>F9")" == *"io.github.timetracker.Time1 Toggle" ]]'
    check "Xfce: a key bound to something else is refused, not overwritten" \
        eval '! "$bin/timectl" shortcut set "<Super>e" >/dev/null 2>&1 && [ "$(xfconf-query -c xfce4-keyboard-shortcuts -p "/commands/custom/<Super>e")" = thunar ]'
    xfsettingsd --disable-wm-check >"$part/xfsettingsd.log" 2>&1 &
    pids+=($!)
    wait_until 20 has_owner org.xfce.SettingsDaemon || { not_ok "Xfce: xfsettingsd started"; return 0; }
    sleep 2  # it grabs the channel's keys after taking its name
    press() { xdotool key super+F9; }
    check "Xfce: Super+F9 pressed (xdotool, XTEST) toggles the timer: idle -> running -> paused" toggles press
    "$bin/timectl" stop >/dev/null 2>&1 || true
    check "Xfce: timectl shortcut remove removes ours and keeps <Super>e" \
        eval '"$bin/timectl" shortcut remove >/dev/null && ! xfconf-query -c xfce4-keyboard-shortcuts -p "/commands/custom/<Super>F9" >/dev/null 2>&1 && [ "$(xfconf-query -c xfce4-keyboard-shortcuts -p "/commands/custom/<Super>e")" = thunar ]'
    unset DISPLAY
}

###############################################################################
kde() {
    say "== KDE: kglobalaccel5 $(kglobalaccel5 --version 2>/dev/null | awk '{print $2}') on Xvfb, a key pressed with xdotool"
    new_part kde || return 0
    export XDG_CURRENT_DESKTOP=KDE QT_QPA_PLATFORM=xcb
    start_xvfb || { not_ok "KDE: Xvfb started"; return 0; }
    check "KDE: timectl shortcut set '<Super>F9' writes it and reads it back" \
        eval '"$bin/timectl" shortcut set "<Super>F9" >"$part/set.out" 2>&1 && shown_key "Super+F9"'
    check "KDE: kreadconfig5 reads _launch=Meta+F9 in kglobalshortcutsrc" \
        eval '[[ "$(kreadconfig5 --file kglobalshortcutsrc --group time-tracker-toggle.desktop --key _launch)" == "Meta+F9,"* ]]'
    # kglobalaccel reads it when it starts, as at the next login.
    QT_LOGGING_RULES="kf.globalaccel*=true" kglobalaccel5 >"$part/kglobalaccel.log" 2>&1 &
    pids+=($!)
    wait_until 20 has_owner org.kde.kglobalaccel || { not_ok "KDE: kglobalaccel5 started"; return 0; }
    # kglobalaccel's own answer: the key it holds for our action (Qt's code for Meta+F9).
    local held
    held="$(gdbus call --session --dest org.kde.kglobalaccel --object-path /kglobalaccel --method org.kde.KGlobalAccel.shortcut \
        "['time-tracker-toggle.desktop', '_launch', 'Toggle the timer', 'Toggle the timer']" 2>&1 || true)"
    check "KDE: kglobalaccel holds Meta+F9 for it ($held)" eval '[[ $held == *"$((0x10000000 | 0x01000038))"* ]]'
    sleep 1
    press() { xdotool key super+F9; }
    check "KDE: Super+F9 pressed (xdotool, XTEST) toggles the timer: idle -> running -> paused" toggles press
    "$bin/timectl" stop >/dev/null 2>&1 || true
    check "KDE: timectl shortcut remove removes it (kreadconfig5 reads nothing)" \
        eval '"$bin/timectl" shortcut remove >/dev/null && [ -z "$(kreadconfig5 --file kglobalshortcutsrc --group time-tracker-toggle.desktop --key _launch)" ] && "$bin/timectl" shortcut show --action toggle | grep -q "^toggle: none"'
    unset DISPLAY QT_QPA_PLATFORM
}

case "$only" in ""|gnome) gnome ;; esac
case "$only" in ""|xfce) xfce ;; esac
case "$only" in ""|kde) kde ;; esac
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
