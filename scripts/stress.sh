#!/usr/bin/env bash
# The long form of the reliability suite (ReliabilityTests; scripts/test.sh runs its quick form):
# 50 clients and 10,000 mixed calls checked against every acknowledged change, 100 kill -9 of
# the agent under load, dying and hung notification servers, session-bus restarts, and 20,000
# hostile D-Bus calls with integrity checks of the store. Every size can be overridden from the
# environment (TIME_STRESS_CALLS, _CLIENTS, _KILLS, _FAULT_CLIENTS, _NOTIFY_CALLS,
# _BUS_RESTARTS, _FUZZ_CALLS); TIME_STRESS_SEED replays a run. Then the crash-state explorer's long
# form (TIME_CRASH_CHANGES, TIME_CRASH_STATES; TIME_CRASH_SEED, by default the same seed). Pass --no-build when the tests
# are already built. Ends with the counts of each part.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES $TEST_PACKAGES

export TIME_STRESS_CALLS="${TIME_STRESS_CALLS:-10000}"
export TIME_STRESS_CLIENTS="${TIME_STRESS_CLIENTS:-50}"
export TIME_STRESS_KILLS="${TIME_STRESS_KILLS:-100}"
export TIME_STRESS_FAULT_CLIENTS="${TIME_STRESS_FAULT_CLIENTS:-6}"
export TIME_STRESS_NOTIFY_CALLS="${TIME_STRESS_NOTIFY_CALLS:-200}"
export TIME_STRESS_BUS_RESTARTS="${TIME_STRESS_BUS_RESTARTS:-5}"
export TIME_STRESS_FUZZ_CALLS="${TIME_STRESS_FUZZ_CALLS:-20000}"
export TIME_STRESS_SEED="${TIME_STRESS_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}"

export TIME_TEST_OUTPUT="${TIME_TEST_OUTPUT:-$PWD/.build/test-output}"
mkdir -p "$TIME_TEST_OUTPUT"
log="$TIME_TEST_OUTPUT/stress.log"

[ "${1:-}" = "--no-build" ] || { say "== Building"; swift build --build-tests; }

say "== Reliability suite, long form (seed $TIME_STRESS_SEED; full log: $log)"
started=$(date +%s)
set +e
swift test --skip-build --filter ReliabilityTests 2>&1 | tee "$log" \
    | grep --line-buffered -vE "^Test Case '.*' started|^Test Suite '.*' started"
status=${PIPESTATUS[0]}
set -e

# The crash-state explorer, long form: more changes, thousands of power-cut states (CrashStateTests).
export TIME_CRASH_CHANGES="${TIME_CRASH_CHANGES:-100}" TIME_CRASH_STATES="${TIME_CRASH_STATES:-5000}"
export TIME_CRASH_SEED="${TIME_CRASH_SEED:-$TIME_STRESS_SEED}"
say "== Crash states, long form ($TIME_CRASH_STATES states after $TIME_CRASH_CHANGES changes, seed $TIME_CRASH_SEED)"
set +e
swift test --skip-build --filter CrashStateTests 2>&1 | tee -a "$log" \
    | grep --line-buffered -vE "^Test Case '.*' started|^Test Suite '.*' started"
crash_status=${PIPESTATUS[0]}
set -e
[ "$status" -ne 0 ] || status=$crash_status

say ""
say "== Reliability summary ($(( $(date +%s) - started )) s, seed $TIME_STRESS_SEED)"
grep -E '^reliability: [a-z-]+: [a-z_]+=' "$log" | grep -v ': seed=' >&2 || say "(no summary lines: see $log)"
grep -E '^(crash states|planted fault)' "$log" >&2 || true
if [ "$status" -ne 0 ]; then
    say "FAILED (replay with TIME_STRESS_SEED=$TIME_STRESS_SEED; full log: $log)"
    exit "$status"
fi
say "== Sync, long form: 50 seeds of each three-device merge world (records; real devices against the clients' oracle), 200 steps through Syncthing"
TIME_SYNC_ROUNDS=50 swift test --skip-build --filter SyncMergeRandomizedTests 2>&1 | grep -E "seed|error|Executed" | tail -n 5 >&2
scripts/test-sync.sh --no-build --long
say "== Tray, long form: 50 logins on GNOME Shell (the shell and the agent started at the same moment)"
# shellcheck disable=SC2086
ensure_packages $TRAY_PACKAGES
TIME_TRAY_LOGINS="${TIME_TRAY_LOGINS:-50}" scripts/tray-gnome.sh "$(swift build --show-bin-path)" "$TIME_TEST_OUTPUT"
say "All reliability checks passed."
