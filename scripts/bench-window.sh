#!/usr/bin/env bash
# The window against Hamster 3.0.2's (Debian's hamster-time-tracker), measured the same way on the
# same generated histories, headless: Xvfb, openbox (so that a window can be minimised), a private
# session bus and an accessibility bus (scripts/window/session.sh).
#   start      from exec to the window showing with today's data: Time's window with the running
#              project's label, its Pause button and an Edit session button for each of today's
#              completed sessions (the Day view); Hamster's window showing (it reads the day's facts
#              from hamster-service before it shows its window: Overview.__init__ calls
#              find_facts() before show_all()); mapped as X sees it (xdotool), what it shows over
#              AT-SPI along paths a first, uncounted start found (scripts/window-check.py launch: GTK
#              4 makes its accessibles when first asked, and a whole walk would slow the start it
#              measures); the median of --runs starts (the agent, or hamster-service, running)
#   memory     RSS of what the person runs: the window plus the agent, Hamster's window plus
#              hamster-service, a few seconds after the start
#   wake-ups   voluntary context switches summed over /proc/PID/task/*/status in a --window-second
#              window: a session running with the window visible, the same minimised (xdotool
#              windowminimize), and no session running (window visible)
# Histories (scripts/window/history.py): N facts in a Hamster database, 8 a day up to today with
# the last one running; Time gets the same ones through `timectl import hamster` and
# `timectl start` of the running activity.
# Goals (reported, not asserted): start ≤ 0.6× Hamster's and ≤ 200 ms; memory ≤ Hamster's;
# wake-ups 0 idle, ≤ 2 a second running and visible with the accessibility bus on (the label's
# tick and one frame), 0 minimised.
#   scripts/bench-window.sh                 1,000 and 100,000 sessions, release build, 30 s windows
#   scripts/bench-window.sh --quick         1,000 sessions, 5 s windows, one start (a smoke run)
#   scripts/bench-window.sh --debug         the debug build (what scripts/test.sh built)
#   scripts/bench-window.sh --no-build      use what is built ([--debug] chooses which)
#   scripts/bench-window.sh --sizes 1000,20000 --window 10 --runs 5 --bin DIR
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/bus-waits.sh
. scripts/window/session.sh
ensure_swift

configuration=release build=1 sizes=(1000 100000) window_seconds=30 runs=3 bin=""
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) sizes=(1000); window_seconds=5; runs=1 ;;
        --debug) configuration=debug ;;
        --no-build) build=0 ;;
        --sizes) IFS=, read -r -a sizes <<<"${2:?--sizes needs a list}"; shift ;;
        --window) window_seconds="${2:?--window needs seconds}"; shift ;;
        --runs) runs="${2:?--runs needs a count}"; shift ;;
        --bin) bin="${2:?--bin needs a folder}"; bin_given=1; build=0; shift ;;
        -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) say "usage: scripts/bench-window.sh [--quick] [--debug] [--no-build] [--sizes N,N] [--window S] [--runs N] [--bin DIR]"; exit 2 ;;
    esac
    shift
done
# shellcheck disable=SC2086
# Hamster draws its day with python3-gi-cairo (only a Recommends of its package).
ensure_packages $WINDOW_PACKAGES hamster-time-tracker python3-gi-cairo openbox
if [ "$build" -eq 1 ]; then
    for product in time-agent timectl time-tracker; do swift build -c "$configuration" --product "$product" >&2; done
fi
[ -n "$bin" ] || bin="$(swift build -c "$configuration" --show-bin-path)"
for program in time-agent timectl time-tracker; do
    [ -x "$bin/$program" ] || { say "bench-window.sh: $bin/$program is not built"; exit 1; }
done
# No __pycache__ beside the scripts (-B).
check=(/usr/bin/python3 -B scripts/window-check.py)

work="$(mktemp -d /tmp/time-bench-window.XXXXXX)"
pids=() window="" agent="" service=""
cleanup() {
    stop_tree "$window" "$agent" "$service"
    local index
    for ((index = ${#pids[@]} - 1; index >= 0; index--)); do stop_tree "${pids[$index]}"; done
    rm -rf "$work"
}
trap cleanup EXIT
window_session "$work"
openbox --sm-disable >"$work/openbox.log" 2>&1 &
pids+=($!)
sleep 1

# Voluntary context switches of each thread of a process: "TID COUNT" lines.
switches() {
    local file tid
    for file in /proc/"$1"/task/*/status; do
        tid="${file#/proc/"$1"/task/}"
        echo "${tid%/status} $(awk '/^voluntary_ctxt_switches/ {print $2}' "$file" 2>/dev/null)"
    done
}
rss_mb() { awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
# wakeups PID... : the voluntary switches of each over the window, "a/b": summed over the threads
# there at the end (a thread that started meanwhile counts from 0; one that ended is not counted).
wakeups() {
    local pid index out=()
    for pid in "$@"; do switches "$pid" >"$work/switches-$pid"; done
    sleep "$window_seconds"
    for pid in "$@"; do
        out+=("$(switches "$pid" | awk -v before="$work/switches-$pid" '
            BEGIN { while ((getline line < before) > 0) { split(line, f, " "); was[f[1]] = f[2] } }
            $2 != "" { total += $2 - (($1 in was) ? was[$1] : 0) }
            END { print total + 0 }')")
    done
    (IFS=/; echo "${out[*]}")
}
median() { tr ' ' '\n' <<<"$*" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
toplevel() { xdotool search --onlyvisible --pid "$1" 2>/dev/null | head -n1; }
minimise() {
    local xid
    xid="$(toplevel "$1")"
    [ -n "$xid" ] || { say "no window of $1 to minimise"; return 1; }
    xdotool windowminimize "$xid"
    wait_until 5 bash -c "xprop -id $xid WM_STATE | grep -q Iconic" || say "(window $xid did not report Iconic)"
    echo "$xid"
}
restore() { xdotool windowmap "$1" windowactivate "$1" 2>/dev/null || true; sleep 1; }
# launch VAR ARGV...: starts a window, waits for it (requirements in $requirements), sets $window;
# the milliseconds to all that go to the array named VAR, those to the window mapped to VAR_mapped.
launch() {
    local into="$1" out fields
    shift
    out="$("${check[@]}" launch --pid-file "$work/window.pid" --log "$work/window.log" "${requirements[@]}" \
        --paths "$work/paths-$size.json" -- "$@")" \
        || { say "the window did not show: $out (log: $(tail -n 3 "$work/window.log"))"; window="$(cat "$work/window.pid")"; return 1; }
    window="$(cat "$work/window.pid")"
    read -r -a fields <<<"$out"
    # A calibrating start (where the required accessibles are, for the next ones) is not counted.
    [ "${fields[3]:-}" = calibrating ] || eval "$into+=(${fields[0]}); ${into}_mapped+=(${fields[1]})"
}

rows=()
row() { rows+=("$(printf '%-9s %-46s %-22s %-22s %s' "$@")"); }

for size in "${sizes[@]}"; do
    say "== $size sessions: generating the history"
    db="$work/hamster-$size.db"
    facts="$(/usr/bin/python3 -B scripts/window/history.py --sessions "$size" --out "$db")"
    running="$(sed -n 's/.*"running": "\([^"]*\)".*/\1/p' <<<"$facts")"
    today="$(sed -n 's/.*"today": \([0-9]*\).*/\1/p' <<<"$facts")"
    done_today=$((today - 1))

    say "-- Time: agent, import, window"
    data="$work/time-$size"
    "$bin/time-agent" --data-dir "$data" --no-notifications --no-tray >>"$work/agent.log" 2>&1 &
    agent=$!
    wait_until 15 has_owner io.github.timetracker.Time1 || { say "time-agent did not start"; exit 1; }
    "$bin/timectl" import hamster "$db" >"$work/import.log" 2>&1 || { say "import failed: $(tail -n 3 "$work/import.log")"; exit 1; }
    # Importing the whole history is a one-off whose high-water mark the agent keeps until it
    # ends; a person's agent has been started since (at a login): measure that one.
    stop_tree "$agent"
    for _ in $(seq 100); do has_owner io.github.timetracker.Time1 || break; sleep 0.1; done
    "$bin/time-agent" --data-dir "$data" --no-notifications --no-tray >>"$work/agent.log" 2>&1 &
    agent=$!
    wait_until 15 has_owner io.github.timetracker.Time1 || { say "time-agent did not start again"; exit 1; }
    "$bin/timectl" start "$running" >/dev/null
    requirements=(--require "label:$running" --require "button:Pause")
    [ "$done_today" -gt 0 ] && requirements+=(--require "buttons:Edit session:$done_today")
    time_starts=() time_starts_mapped=()
    launch time_starts env "${WINDOW_ENV[@]}" "$bin/time-tracker" && stop_tree "$window"
    window=""
    sleep 1
    for run in $(seq "$runs"); do
        launch time_starts env "${WINDOW_ENV[@]}" "$bin/time-tracker" || break
        [ "$run" -lt "$runs" ] && { stop_tree "$window"; window=""; sleep 1; }
    done
    sleep 3
    time_rss="$(rss_mb "$window") + $(rss_mb "$agent") = $(( $(rss_mb "$window") + $(rss_mb "$agent") ))"
    say "-- Time: wake-ups ($window_seconds s each)"
    time_visible="$(wakeups "$window" "$agent")"
    xid="$(minimise "$window")"
    time_minimised="$(wakeups "$window" "$agent")"
    restore "$xid"
    "$bin/timectl" stop >/dev/null
    sleep 2
    time_idle="$(wakeups "$window" "$agent")"
    stop_tree "$window" "$agent"
    window="" agent=""

    say "-- Hamster 3.0.2: hamster-service, window"
    home="$work/hamster-home-$size"
    mkdir -p "$home/hamster"
    cp "$db" "$home/hamster/hamster.db"
    env XDG_DATA_HOME="$home" /usr/libexec/hamster/hamster-service >"$work/hamster-service.log" 2>&1 &
    service=$!
    wait_until 30 has_owner org.gnome.Hamster || { say "hamster-service did not start: $(tail -n 3 "$work/hamster-service.log")"; exit 1; }
    requirements=()
    hamster_starts=() hamster_starts_mapped=()
    for run in $(seq "$runs"); do
        launch hamster_starts env XDG_DATA_HOME="$home" GDK_BACKEND=x11 /usr/bin/hamster || break
        [ "$run" -lt "$runs" ] && { stop_tree "$window"; window=""; sleep 1; }
    done
    sleep 3
    hamster_rss="$(rss_mb "$window") + $(rss_mb "$service") = $(( $(rss_mb "$window") + $(rss_mb "$service") ))"
    say "-- Hamster: wake-ups ($window_seconds s each)"
    hamster_visible="$(wakeups "$window" "$service")"
    xid="$(minimise "$window")"
    hamster_minimised="$(wakeups "$window" "$service")"
    restore "$xid"
    env XDG_DATA_HOME="$home" /usr/bin/hamster stop >/dev/null 2>&1 || true
    sleep 2
    hamster_idle="$(wakeups "$window" "$service")"
    stop_tree "$window" "$service"
    window="" service=""

    # The table's rows, with Time's verdicts.
    t="$(median "${time_starts[@]:-0}")" h="$(median "${hamster_starts[@]:-0}")"
    verdict="ok"
    { [ "$t" -le 200 ] && [ $((t * 10)) -le $((h * 6)) ]; } || verdict="MISSED (goal ≤ 0.6× Hamster and ≤ 200 ms)"
    row "$size" "start to the window with today's data (ms)" "$t (${time_starts[*]:-})" "$h (${hamster_starts[*]:-})" "$verdict"
    row "$size" "  of which to the window mapped (ms)" "$(median "${time_starts_mapped[@]:-0}")" "$(median "${hamster_starts_mapped[@]:-0}")" ""
    verdict="ok"
    [ "${time_rss##* }" -le "${hamster_rss##* }" ] || verdict="MISSED (goal ≤ Hamster's)"
    row "$size" "RSS, window + agent / + hamster-service (MB)" "$time_rss" "$hamster_rss" "$verdict"
    verdict="ok"
    [ "$time_idle" = "0/0" ] || verdict="MISSED (goal 0)"
    row "$size" "wake-ups in ${window_seconds} s, idle (window/agent)" "$time_idle" "$hamster_idle" "$verdict"
    verdict="ok"
    [ "${time_visible%%/*}" -le $((2 * window_seconds)) ] || verdict="MISSED (goal ≤ 2 a second)"
    row "$size" "wake-ups in ${window_seconds} s, running, visible" "$time_visible" "$hamster_visible" "$verdict"
    verdict="ok"
    [ "${time_minimised%%/*}" -eq 0 ] || verdict="MISSED (goal 0)"
    row "$size" "wake-ups in ${window_seconds} s, running, minimised" "$time_minimised" "$hamster_minimised" "$verdict"
done

built="$configuration build"
[ -z "${bin_given:-}" ] || built="programs in $bin"
echo "The window against Hamster 3.0.2 ($built; Xvfb, GSK_RENDERER=cairo; starts: median (each run))"
printf '%-9s %-46s %-22s %-22s %s\n' "sessions" "measure" "Time" "Hamster" "goal"
printf '%s\n' "${rows[@]}"
