#!/usr/bin/env bash
# Profiles the durable path of one acknowledged Pause/Resume in a real agent at 100,000 sessions
# (docs/durable-path.md): callgrind's instruction counts, from the D-Bus message's dispatch to the
# reply and the work after it.
#   scripts/profile-durable-path.sh [--size N] [--changes N] [--kind pause|switch|stop|edit] [--keep DIR] [--debug]
# --kind: Pause/Resume pairs (the default), StartProject switching projects, Stop (each after an
# uncounted StartProject), or EditSession of a session two years back.
# Two runs of the same agent on the same data: under callgrind (instruction counts per part, per
# change: scripts/profile-parts.py) and natively with TIME_PATH_TRACE (wall time per part, the
# median of each over --changes × 10 changes: Sources/PathTrace). callgrind.out and trace.tsv stay
# in the work folder with --keep (for kcachegrind or callgrind_annotate --tree=calling).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES dbus-daemon valgrind

size=100000 changes=20 keep="" configuration=release kind=pause
while [ $# -gt 0 ]; do
    case "$1" in
        --size) size="$2"; shift ;;
        --changes) changes="$2"; shift ;;
        --keep) keep="$2"; shift ;;
        --kind) kind="$2"; shift ;;
        --debug) configuration=debug ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
swift build -c "$configuration" --product time-agent >&2
swift build -c "$configuration" --product time-bench >&2
bin="$(swift build -c "$configuration" --show-bin-path)"
work="${keep:-$(mktemp -d /tmp/time-profile.XXXXXX)}"
mkdir -p "$work"
bus_pid="" agent_pid=""
cleanup() {
    [ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null && wait "$agent_pid" 2>/dev/null || true
    [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null || true
    [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

data="$work/data-$size"
[ -d "$data" ] || "$bin/time-bench" --generate "$size" "$data"
dbus-daemon --session --nofork --nopidfile --print-address=1 >"$work/bus-address" 2>/dev/null &
bus_pid=$!
for _ in $(seq 400); do [ -s "$work/bus-address" ] && break; sleep 0.05; done
address="$(head -1 "$work/bus-address")"

# Counting starts only once the agent answers and a few changes warmed it up (caches filled,
# the first change after start records the chunk tree), so the counts are those of a change.
rm -f "$work"/callgrind.out*
DBUS_SESSION_BUS_ADDRESS="$address" TZ=UTC valgrind --tool=callgrind --instr-atstart=no --separate-threads=yes \
    --callgrind-out-file="$work/callgrind.out" "$bin/time-agent" --data-dir "$data" --no-notifications 2>"$work/valgrind.log" &
agent_pid=$!
for _ in $(seq 600); do "$bin/time-bench" --drive-pauses "$address" 1 >/dev/null 2>&1 && break; sleep 0.5; done
# More changes than the undo history keeps (100): the steps of the generation (one holds the
# whole import) have left it, as in an agent used for a while.
for _ in $(seq 12); do "$bin/time-bench" --drive-pauses "$address" 5 >/dev/null; done
# Rounds of 5 pairs in a new session each (its start not counted): nothing else reaches the agent.
# The other kinds: 5 changes a round, the StartProject before a Stop not counted.
rounds=$(( (changes + 4) / 5 ))
drive() { "$bin/time-bench" --drive "$address" "$@" >&2; }
counting() { callgrind_control --instr=on "$agent_pid" >/dev/null; "$@"; callgrind_control --instr=off "$agent_pid" >/dev/null; }
[ "$kind" = pause ] || "$bin/time-bench" --drive-pauses "$address" 0
for _ in $(seq "$rounds"); do
    case "$kind" in
        pause) "$bin/time-bench" --drive-pauses "$address" 0; counting "$bin/time-bench" --drive-pauses "$address" 5 same >&2 ;;
        switch) counting drive switch 5 ;;
        stop) for _ in 1 2 3 4 5; do drive start 1; counting drive stop 1; done ;;
        edit) counting drive edit 5 ;;
        *) echo "unknown kind $kind (pause, switch, stop or edit)" >&2; exit 2 ;;
    esac
done
changes=$(( rounds * 5 ))
[ "$kind" = pause ] && counted=$((2 * changes)) || counted=$changes
callgrind_control --dump "$agent_pid" >/dev/null
kill "$agent_pid"; wait "$agent_pid" 2>/dev/null || true; agent_pid=""
main="$(ls "$work"/callgrind.out.1-01 2>/dev/null | head -1)"
[ -n "$main" ] || main="$(ls -S "$work"/callgrind.out* | head -1)"
say "== instructions per change (callgrind, main thread; $counted changes: $kind)"
callgrind_annotate --inclusive=yes --threshold=100 "$main" 2>/dev/null | swift demangle --simplified >"$work/inclusive.txt"
python3 scripts/profile-parts.py "$work/inclusive.txt" "$counted"

# The same path natively, its parts timed (wall clock) by the agent itself.
DBUS_SESSION_BUS_ADDRESS="$address" TZ=UTC TIME_PATH_TRACE="$work/trace.tsv" \
    "$bin/time-agent" --data-dir "$data" --no-notifications 2>"$work/agent.log" &
agent_pid=$!
for _ in $(seq 600); do "$bin/time-bench" --drive-pauses "$address" 1 >/dev/null 2>&1 && break; sleep 0.1; done
case "$kind" in
    pause) for _ in $(seq $((rounds * 10))); do "$bin/time-bench" --drive-pauses "$address" 5 >/dev/null; done ;;
    switch) "$bin/time-bench" --drive-pauses "$address" 0; drive switch $((rounds * 50)) ;;
    stop) for _ in $(seq $((rounds * 25))); do drive start 1; drive stop 1; done ;;
    edit) drive edit $((rounds * 50)) ;;
esac
kill "$agent_pid"; wait "$agent_pid" 2>/dev/null || true; agent_pid=""
say "== wall time per part, native (µs; median and mean over every change of the run: with --kind pause the Stop and StartProject between rounds, with --kind stop the StartProject before each Stop, are included)"
column -t -s $'\t' "$work/trace.tsv"
