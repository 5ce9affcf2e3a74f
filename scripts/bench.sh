#!/usr/bin/env bash
# Measures Time at 1,000, 20,000 and 100,000 sessions of history (generated through the store's
# own code) and prints one table, with each goal checked; at each size it also imports that many
# Timewarrior intervals as one change (100,000 in the full run), then 1,000 more into that store:
#   scripts/bench.sh            all three sizes, release build, 60 s wake-up windows (about 10 min)
#   scripts/bench.sh --quick    1,000 sessions only, 5 s windows (under a minute; run by test.sh)
#   scripts/bench.sh --json     the same as JSON
#   scripts/bench.sh --debug    use the debug build (what test.sh already built); numbers are slower
#   scripts/bench.sh --import-only   only the import measurements
#   scripts/bench.sh --sync-only     only the sync measurements (and enabling and joining in the agent)
#   scripts/bench.sh --sync-agent-only   only enabling sync and joining a folder in the agent
#   scripts/bench.sh --changes-only  only the core rows: every kind of change, its flushes, the roll-forward
#   scripts/bench.sh --reports-only  only the report rows (a month's and a year's Report)
#   scripts/bench.sh --durable-only  only the durable path against its floor (fdatasync + Ping), 5 runs;
#                    each timed call after an untimed Ping that waits out the agent's work before it
#   scripts/bench.sh --durable-only --split   the same, then each call split into its way to the
#                    agent, the agent's path to the reply (its flush and its CPU) and the reply's
#                    way back (the agent times its own path: scripts/durable-split.py)
# Sync rows: 10,000 records of another device merged into that history, a local change with sync
# on against off (goal 1.2×), and the idle agent's wake-ups with sync on (goal 0); enabling sync on
# that history in an agent and a second agent joining the folder (goals at 100,000: peak RSS ≤ 64
# MiB above the idle agent's, GetStatus answered within 50 ms meanwhile).
# Report rows: a month's and a year's Report over D-Bus around the middle of the history (goals: a
# month ≤ 5 ms at 100,000 sessions and within 1.2× of 1,000, a year within 12× of a month).
# then timectl toggle/start/stop/status side by side with dbus-send (scripts/bench-timectl.sh).
# Every kind of change is timed in the core with the flushes it makes (counted by the crash
# recorder), beside the floor (one in-place fdatasync of 4 KiB, one D-Bus round trip) and the
# start-up that rolls a store forward after a power cut took its last commits.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES dbus-daemon

configuration=release
split=no
arguments=()
for argument in "$@"; do
    case "$argument" in
        --debug) configuration=debug ;;
        --split) split=yes ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) arguments+=("$argument") ;;
    esac
done
swift build -c "$configuration" --product time-agent >&2
swift build -c "$configuration" --product time-bench >&2
swift build -c "$configuration" --product time-crash-recorder >&2
bin="$(swift build -c "$configuration" --show-bin-path)"
work="$(mktemp -d /tmp/time-bench.XXXXXX)"
trap 'rm -rf "$work"' EXIT
[ "$configuration" = debug ] && say "(debug build: timings are slower than a release build's)"
# The crash recorder, loaded without a log, counts the flushes under the work folder ("flushes per change").
if [ "$split" = yes ]; then
    export TIME_PATH_TRACE="$work/path-trace.tsv" TIME_BENCH_CALL_LOG="$work/bench-calls.tsv"
fi
LD_PRELOAD="$bin/libtime-crash-recorder.so" TIME_CRASH_ROOT="$work" "$bin/time-bench" --work "$work" "${arguments[@]}"
if [ "$split" = yes ]; then
    unset TIME_PATH_TRACE TIME_BENCH_CALL_LOG
    python3 scripts/durable-split.py "$work/path-trace.tsv.calls" "$work/bench-calls.tsv"
fi
# timectl as whole processes against dbus-send (not in the --json output).
[[ " ${arguments[*]:-} " == *" --json "* || " ${arguments[*]:-} " == *" --reports-only "* || " ${arguments[*]:-} " == *" --durable-only "* ]] || scripts/bench-timectl.sh "$configuration" "$([[ " ${arguments[*]:-} " == *" --quick "* ]] && echo --quick)"
