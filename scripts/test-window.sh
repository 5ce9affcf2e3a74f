#!/usr/bin/env bash
# The real window driven over AT-SPI, as a person uses it, with the agent as the oracle: the built
# time-tracker under Xvfb (GDK_BACKEND=x11, GSK_RENDERER=cairo) with an accessibility bus, the real
# time-agent on a private session bus (a bus of our own, with no service files: nothing else can be
# started on it), a private HOME, XDG folders and data folder, TZ fixed. scripts/window-check.py
# finds each control by role and accessible name, presses it through its AT-SPI action and types
# through EditableText (never coordinates); the agent's State, ListSessions, ListProjects and
# ListCategories say whether it worked:
#   0. every control is named once (GTK 4.8 says a name twice when a control has both an
#      accessible label and a labelled-by relation), in the main window and in the dialogs
#   1. the Projects view: activating the Writing row starts it; the Now view's elapsed time moves
#   2. Pause, Resume, Stop
#   3. the Day view: Previous day, Edit session on yesterday's session, End 17:30, Save
#   4. Delete session, then the toast's Undo
#   5. New project with a new category (Name, Category, Save)
#   6. `timectl start Writing` while the window is open shows within a second
#   7. the agent killed (-9) and restarted: the window says it is reconnecting, then works again;
#      the same with the New project dialog open: what was typed in it stays
#   8. a read-only store (a newer schema): Start, New project, Add time (and Stop, Pause where
#      shown) insensitive, StorageMessage shown
#   9. pictures of the Now, Day and Week views, light and dark (ADW_DEBUG_COLOR_SCHEME=prefer-dark)
#  10-16. times given late (scripts/window/corrections.py): "Started at" -30m, an Overlap and its
#      "Shorten and save", "Paused since", "Stop at", "Start at", the Day view's overlap marks
#   P. Preferences (scripts/window/settings_checks.py), opened from the main menu: every control
#      named once; the reminder spin button sets ReminderMinutes, and timectl/busctl changes show
#      in it; the weekly target; the currency and the agent's refusal in its words; sync on with a
#      folder (SyncFolder, the devices seen) and off; Start at login off writes the override in
#      ~/.config/autostart, on removes it; the Keyboard shortcut typed in its dialog lands in
#      Xfce's xfce4-keyboard-shortcuts channel (read back with xfconf-query) and is removed again
#   H. History from the main menu: the agent's newest step first, a timectl change shown at once,
#      Undo (the step marked undone) and Redo
#   C. the Week view's chart drawn for the colour scheme in force, redrawn when the desktop's style
#      changes (a stand-in for the settings portal, scripts/window/scheme_portal.py, switches it)
# One line per check (ok - / not ok -), then "N passed, M failed"; exit status 1 on any failure.
# Pictures, logs and, on a failure, the window's AT-SPI tree go to $TIME_TEST_OUTPUT/window
# (default .build/test-output/window).
#   scripts/test-window.sh [--no-build] [--screenshots] [--keep] [--bin DIR]
#     --no-build      use the existing debug build
#     --screenshots   also copy the pictures to docs/window-{now,day,week,preferences,preferences-sync}[-dark].png
#     --keep          keep the work folder (/tmp/time-window.*) with the stores and logs
#     --bin DIR       take time-agent, timectl and time-tracker from DIR (implies --no-build)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/bus-waits.sh
ensure_swift

build=1 screenshots=0 keep=0 bin=""
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --screenshots) screenshots=1 ;;
        --keep) keep=1 ;;
        --bin) bin="${2:?--bin needs a folder}"; build=0; shift ;;
        -h|--help) sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) say "usage: scripts/test-window.sh [--no-build] [--screenshots] [--keep] [--bin DIR]"; exit 2 ;;
    esac
    shift
done
# shellcheck disable=SC2086
ensure_packages $WINDOW_PACKAGES
[ "$build" -eq 1 ] && swift build >&2
[ -n "$bin" ] || bin="$(swift build --show-bin-path)"
for program in time-agent timectl time-tracker; do
    [ -x "$bin/$program" ] || { say "test-window.sh: $bin/$program is not built (run without --no-build)"; exit 1; }
done
output="${TIME_TEST_OUTPUT:-$PWD/.build/test-output}/window"
rm -rf "$output"
mkdir -p "$output"
# No __pycache__ beside the scripts (-B).
check=(/usr/bin/python3 -B scripts/window-check.py)

. scripts/window/session.sh
work="$(mktemp -d /tmp/time-window.XXXXXX)"
pids=()
cleanup() {
    stop_tree "${window:-}"
    stop_tree "$(cat "$work/agent.pid" 2>/dev/null || true)"
    local index
    for ((index = ${#pids[@]} - 1; index >= 0; index--)); do stop_tree "${pids[$index]}"; done
    if [ "$keep" -eq 1 ]; then say "work folder kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
window_session "$work"
export TIME_TRACKER_DATA_DIR="$work/data"
mkdir -p "$work/data"

results="$work/results"
: >"$results"
report() { printf '%s\n' "$1" | tee -a "$results"; }
# Runs a check phase; its ok/not ok lines are kept for the count.
phase() { "${check[@]}" "$@" 2>>"$work/check.log" | tee -a "$results" || true; }

agent_argv() { echo "$bin/time-agent" --data-dir "$1" --no-notifications --no-tray --verbose; }
start_agent() { # start_agent DATA-DIR
    # shellcheck disable=SC2046
    $(agent_argv "$1") >>"$work/agent.log" 2>&1 &
    echo $! >"$work/agent.pid"
    disown  # check 7 kills it with SIGKILL: no "Killed" line from the shell
    wait_until 15 has_owner io.github.timetracker.Time1 || { report "not ok - time-agent did not start on $1"; return 1; }
}
stop_agent() { stop_tree "$(cat "$work/agent.pid" 2>/dev/null || true)"; rm -f "$work/agent.pid"; }
start_window() { # start_window [VAR=VALUE...]
    env "${WINDOW_ENV[@]}" "$@" "$bin/time-tracker" >>"$work/window.log" 2>&1 &
    window=$!
}
stop_window() { # stop_window PHASE: stops it, and says so if it had died on the way
    if ! kill -0 "$window" 2>/dev/null || [ "$(ps -o stat= -p "$window" | cut -c1)" = Z ]; then
        report "not ok - the window kept running through $1 (it exited; see $output/window.log)"
    fi
    stop_tree "$window"
    window=""
}
timectl() { "$bin/timectl" "$@" >/dev/null; }

say "== The window, driven over AT-SPI (agent on a private bus, Xvfb $DISPLAY)"
start_agent "$work/data"
"${check[@]}" seed --output "$output" 2>>"$work/check.log" || report "not ok - seeding the agent (projects, yesterday's session)"
start_window
phase checks --pid "$window" --output "$output" --timectl "$bin/timectl" --agent-pid-file "$work/agent.pid" \
    --agent-log "$work/agent.log" -- $(agent_argv "$work/data")
stop_window "checks 1-7"

say "== Times given late: Started at, Overlap, Paused since, Stop at, Start at"
# A store of its own: Email 3 h to 2 h ago, two sessions typed by hand yesterday that overlap.
stop_agent
start_agent "$work/corrections"
"${check[@]}" seed-corrections 2>>"$work/check.log" || report "not ok - seeding the agent for the corrections"
start_window
phase corrections --pid "$window" --output "$output"
stop_window "checks 10-16"

say "== Preferences and History (a store of their own; an autostart entry installed for everyone)"
# Preferences' login start reads the system's entry from $XDG_CONFIG_DIRS and writes the user's
# override in $XDG_CONFIG_HOME/autostart: both in the work folder.
stop_agent
start_agent "$work/settings"
mkdir -p "$work/xdg/autostart"
cp desktop/time-agent-autostart.desktop "$work/xdg/autostart/time-agent.desktop"
# The desktop's style through a stand-in for the settings portal (light now, dark on SIGUSR1).
/usr/bin/python3 -B scripts/window/scheme_portal.py >>"$work/portal.log" 2>&1 &
pids+=($!)
portal=$!
wait_until 10 has_owner org.freedesktop.portal.Desktop || report "not ok - the settings portal stand-in did not start"
# The keyboard shortcut is written as on Xfce: xfconfd (its settings store), started by this bus.
cp /usr/share/dbus-1/services/org.xfce.Xfconf.service "$work/services/"
start_window XDG_CONFIG_DIRS="$work/xdg" XDG_CURRENT_DESKTOP=XFCE
phase_settings() { /usr/bin/python3 -B scripts/window/settings_checks.py "$@" 2>>"$work/check.log" | tee -a "$results" || true; }
phase_settings preferences --pid "$window" --output "$output" --timectl "$bin/timectl" --sync-folder "$work/sync" \
    --autostart-system "$work/xdg/autostart/time-agent.desktop"
phase_settings history --pid "$window" --output "$output" --timectl "$bin/timectl"
phase_settings scheme --pid "$window" --output "$output" --portal-pid "$portal"
stop_window "Preferences and History"
stop_tree "$portal"  # the pictures below set their scheme themselves

say "== Pictures, light and dark"
# A store of their own: yesterday's session, this morning's work, Writing running.
stop_agent
start_agent "$work/pictures"
"${check[@]}" seed --output "$work" 2>>"$work/check.log" || report "not ok - seeding the agent for the pictures"
start_window
phase shots --pid "$window" --output "$output"
phase_settings picture --pid "$window" --output "$output"
stop_window "the light pictures"
start_window ADW_DEBUG_COLOR_SCHEME=prefer-dark
phase shots --pid "$window" --output "$output" --suffix=-dark
phase_settings picture --pid "$window" --output "$output" --suffix=-dark
stop_window "the dark pictures"
"$bin/timectl" stop >/dev/null 2>&1 || true
stop_agent

say "== A read-only store (a newer schema)"
# A store with a project and an open session, then marked as written by a newer schema: the agent
# serves it read-only (and, not reading a newer store, serves no data: idle, no projects).
data="$work/read-only"
if start_agent "$data"; then
    { timectl categories add Work && timectl projects add Writing --color '#2e7d32' --category Work &&
        timectl start Writing; } || report "not ok - preparing the store that becomes read-only"
    stop_agent
    sqlite3 "$data/time.sqlite" "PRAGMA user_version = 99;"
    if start_agent "$data"; then
        start_window
        phase read-only --pid "$window" --output "$output" --names "Start,New project,Add time" --optional "Stop,Pause"
        stop_window "the read-only store"
        stop_agent
    fi
fi

if [ "$screenshots" -eq 1 ]; then
    for picture in window-now window-day window-week window-now-dark window-day-dark window-week-dark window-focus \
        window-preferences window-preferences-dark window-preferences-sync window-preferences-sync-dark; do
        [ -f "$output/$picture.png" ] && cp "$output/$picture.png" "docs/$picture.png" && say "docs/$picture.png updated"
    done
fi

passed="$(grep -c '^ok - ' "$results" || true)"
failed="$(grep -c '^not ok - ' "$results" || true)"
cp "$work"/*.log "$output/" 2>/dev/null || true
if [ "$failed" -gt 0 ]; then
    say "Logs and the window's AT-SPI trees at each failure: $output"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
