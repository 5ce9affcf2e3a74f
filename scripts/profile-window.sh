#!/usr/bin/env bash
# Where the window's start time and memory go, measured (for the notes beside scripts/bench-window.sh):
#   time     perf record of time-tracker from exec until today's data is on screen (the same
#            readiness as bench-window.sh's start), reported by library (dso) and by symbol; with
#            the process's CPU time beside its wall time (the rest is waiting: D-Bus, the X server)
#   memory   the window's and the agent's resident memory by mapping (/proc/PID/smaps): heap and
#            anonymous memory, each library, fonts and caches
# On a generated history (scripts/window/history.py) imported into a fresh agent, under Xvfb with
# an accessibility bus (scripts/window/session.sh), release build.
#   scripts/profile-window.sh [--sessions N] [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/bus-waits.sh
. scripts/window/session.sh
ensure_swift

sessions=1000 build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --sessions) sessions="${2:?--sessions needs a number}"; shift ;;
        --no-build) build=0 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) say "usage: scripts/profile-window.sh [--sessions N] [--no-build]"; exit 2 ;;
    esac
    shift
done
# shellcheck disable=SC2086
ensure_packages $WINDOW_PACKAGES linux-perf
if [ "$build" -eq 1 ]; then
    for product in time-agent timectl time-tracker; do swift build -c release --product "$product" >&2; done
fi
bin="$(swift build -c release --show-bin-path)"
work="$(mktemp -d /tmp/time-profile-window.XXXXXX)"
pids=() window="" agent=""
cleanup() {
    stop_tree "$window" "$agent"
    local index
    for ((index = ${#pids[@]} - 1; index >= 0; index--)); do stop_tree "${pids[$index]}"; done
    rm -rf "$work"
}
trap cleanup EXIT
window_session "$work"

facts="$(/usr/bin/python3 -B scripts/window/history.py --sessions "$sessions" --out "$work/hamster.db")"
running="$(sed -n 's/.*"running": "\([^"]*\)".*/\1/p' <<<"$facts")"
"$bin/time-agent" --data-dir "$work/data" --no-notifications --no-tray >"$work/agent.log" 2>&1 &
agent=$!
wait_until 15 has_owner io.github.timetracker.Time1 || { say "time-agent did not start"; exit 1; }
"$bin/timectl" import hamster "$work/hamster.db" >/dev/null
stop_tree "$agent"
for _ in $(seq 100); do has_owner io.github.timetracker.Time1 || break; sleep 0.1; done
"$bin/time-agent" --data-dir "$work/data" --no-notifications --no-tray >>"$work/agent.log" 2>&1 &
agent=$!
wait_until 15 has_owner io.github.timetracker.Time1 || { say "time-agent did not start again"; exit 1; }
"$bin/timectl" start "$running" >/dev/null

# A first start, not profiled: GTK's caches (fonts, icons) warm, as for a person's second start.
out="$(/usr/bin/python3 -B scripts/window-check.py launch --pid-file "$work/window.pid" --require "label:$running" \
    --require "button:Pause" --paths "$work/paths.json" -- env "${WINDOW_ENV[@]}" "$bin/time-tracker")"
stop_tree "$(cat "$work/window.pid")"
sleep 1
say "== time: perf record of the window's first 2 s ($sessions sessions): its start, as nothing else runs in it"
# perf samples only while a thread is on a CPU: the waits of the start (the agent's answer, the X
# server) are not in it; the CPU time beside the wall time says how much they are.
perf record -q -F 2000 -g -o "$work/perf.data" -- env "${WINDOW_ENV[@]}" "$bin/time-tracker" >"$work/window.log" 2>&1 &
perf_pid=$!
for _ in $(seq 50); do window="$(pgrep -n -f "^$bin/time-tracker")" && break; sleep 0.02; done
sleep 2
ticks="$(awk '{print $14 + $15}' "/proc/$window/stat")"
echo "the window's CPU time in its first 2 s: $((ticks * 1000 / $(getconf CLK_TCK))) ms (user + system)"
kill "$window"; wait "$perf_pid" 2>/dev/null || true
window=""
perf report -i "$work/perf.data" --no-children --sort dso -g none --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 15 || true
echo "-- symbols"
perf report -i "$work/perf.data" --no-children --sort dso,sym --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -n 25 || true

say "== memory: resident by mapping"
env "${WINDOW_ENV[@]}" "$bin/time-tracker" >"$work/window.log" 2>&1 &
window=$!
sleep 4
for pid in "$window" "$agent"; do
    echo "-- $(cat /proc/$pid/comm) (pid $pid): VmRSS $(awk '/^VmRSS/ {print $2 " kB"}' /proc/$pid/status)"
    awk '/^[0-9a-f]+-[0-9a-f]+ / { name = (NF >= 6) ? $6 : "[anonymous]" }
         /^Rss:/ { rss[name] += $2 }
         END { for (n in rss) if (rss[n] >= 512) printf "%8d kB  %s\n", rss[n], n }' "/proc/$pid/smaps" | sort -rn | head -n 18 || true
done
