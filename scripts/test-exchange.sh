#!/usr/bin/env bash
# Import and export against the real peers: Debian's timewarrior and hamster-time-tracker and
# PyPI's td-watson (in a virtual environment under .build/) write entries through their own code
# (midnight crossings, the DST nights of Europe/Berlin, quotes, commas, newlines, tags with
# spaces, a running interval); a real agent on a private bus imports them; the week totals must
# equal what each peer reports itself, a re-import must add nothing, a bad file must change
# nothing. Then the exports: csv and json read back, iCalendar checked by PyPI's icalendar and
# line by line. Pass --no-build when the products are built; --keep DIR keeps the peers' data.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES $EXCHANGE_PACKAGES

build=1 keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --keep) keep="$2"; shift ;;
        --inside) shift; break ;;
        *) say "unknown option $1"; exit 2 ;;
    esac
    shift
done

if [ "${TIME_EXCHANGE_INSIDE:-}" != 1 ]; then
    [ "$build" = 0 ] || swift build --product time-agent >&2
    [ "$build" = 0 ] || swift build --product timectl >&2
    venv=.build/exchange-venv
    if ! "$venv/bin/python" -c 'import watson, icalendar' 2>/dev/null; then
        say "Installing td-watson and icalendar into $venv"
        /usr/bin/python3 -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet td-watson icalendar
    fi
    work="$(mktemp -d /tmp/time-exchange.XXXXXX)"
    trap 'rm -rf "$work"' EXIT
    # One private session bus for everything (Hamster's modules need one too); it ends with us.
    TIME_EXCHANGE_INSIDE=1 WORK="$work" BIN="$(swift build --show-bin-path)" VENV="$PWD/$venv" KEEP="$keep" \
        dbus-run-session -- "$0" 2> >(grep -v "Failed to set fd limit" >&2)
    exit $?
fi

export TZ=Europe/Berlin LC_ALL=C.UTF-8
export HOME="$WORK/home" XDG_DATA_HOME="$WORK/home/.local/share" XDG_CONFIG_HOME="$WORK/home/.config"
export TIMEWARRIORDB="$WORK/timewarrior" WATSON_DIR="$WORK/watson"
mkdir -p "$HOME" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$TIMEWARRIORDB"
timectl="$BIN/timectl"
watson="$VENV/bin/watson"
hamster=(/usr/bin/python3 scripts/exchange/hamster-peer.py)
agent_pid=""
fail() { say "FAIL: $*"; exit 1; }
check() { /usr/bin/python3 scripts/exchange/check.py "$@"; }

start_agent() { # a fresh agent with its own data folder
    stop_agent
    export TIME_TRACKER_DATA_DIR="$WORK/data-$1"
    mkdir -p "$TIME_TRACKER_DATA_DIR"
    "$BIN/time-agent" 2>>"$WORK/agent.log" &
    agent_pid=$!
    for _ in $(seq 100); do "$timectl" status >/dev/null 2>&1 && return 0; sleep 0.1; done
    fail "the agent did not come up"
}
stop_agent() {
    [ -n "$agent_pid" ] || return 0
    kill "$agent_pid" 2>/dev/null || true
    wait "$agent_pid" 2>/dev/null || true
    agent_pid=""
}
trap stop_agent EXIT

# The checked week (2025-W48, Monday 2025-11-24) and the DST nights of 2025 lie in the past on any
# machine that runs this, so every completed entry is importable.

say "-- Timewarrior $(timew --version) writes entries"
tw() { timew "$@" :yes >/dev/null 2>&1 || fail "timew $*"; }
tw track 2025-11-24T22:00 - 2025-11-25T01:30 Writing 'tag with space'
tw track 2025-11-25T09:00 - 2025-11-25T10:15 'Client, "Big"' Reviews
tw annotate @1 'fixed "bug", commas, and a
newline'
tw track 2025-11-26T10:00 - 2025-11-26T11:00
tw track 2025-11-27T14:00 - 2025-11-27T15:30 Writing draft
tw track 2025-10-26T01:30 - 2025-10-26T02:30 Night
tw track 2025-03-30T01:00 - 2025-03-30T03:30 Spring
tw start Running
tw_week="$(timew summary 2025-11-24 - 2025-12-01 | awk 'NF { last = $NF } END { print last }')"

say "-- Watson $("$watson" --version | awk '{print $NF}') writes frames"
wa() { "$watson" "$@" >/dev/null || fail "watson $*"; }
wa add -f "2025-11-24 22:00" -t "2025-11-25 01:30" Writing +'tag with space' +draft
wa add -f "2025-11-25 09:00" -t "2025-11-25 10:15" 'Client, "Big"' +review
wa add -f "2025-11-27 14:00" -t "2025-11-27 15:30" Writing
wa add -f "2025-10-26 01:30" -t "2025-10-26 03:40" Night
wa start Running +live
watson_week="$("$watson" report -f 2025-11-24 -t 2025-11-30 --json | check json-total)"

say "-- Hamster (its storage code) writes facts"
ha() { "${hamster[@]}" "$@" 2>>"$WORK/hamster.log" || fail "hamster $*"; }
ha add "2025-11-24 22:00" "2025-11-25 01:30" Writing Work 'Draft, "chapter 2"
second line' 'tag with space,draft' >/dev/null
ha add "2025-11-25 09:00" "2025-11-25 10:15" 'Client, "Big"' "" "" "" >/dev/null
edited="$(ha add "2025-11-27 14:00" "2025-11-27 15:00" Writing Work "" "")"
ha edit "$edited" "2025-11-27 14:00" "2025-11-27 15:30" >/dev/null
ha add "2025-10-26 01:30" "2025-10-26 02:30" Night "" "" "" >/dev/null
ha add "2025-10-26 02:40" "2025-10-26 03:40" Night "" "" "" >/dev/null
ha add "2025-03-30 02:30" "2025-03-30 04:00" Spring "" "" "" >/dev/null
ha add "2025-11-28 09:00" "" Running "" "" "" >/dev/null
hamster_week="$(ha total 2025-11-24 2025-11-30)"

if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP"
    cp "$TIMEWARRIORDB"/data/2025-*.data "$KEEP/"
    cp "$WATSON_DIR/frames" "$KEEP/watson-frames.json"
    sqlite3 "$XDG_DATA_HOME/hamster/hamster.db" .dump > "$KEEP/hamster.sql"
    say "kept the peers' data in $KEEP"
fi

week_total() { "$timectl" report 2025-W48 --json | check report-total; }

say "-- Timewarrior import"
start_agent timewarrior
"$timectl" import timewarrior --dry-run > "$WORK/out" || fail "dry run refused"
grep -q "Would import 6 sessions" "$WORK/out" || fail "dry run: $(cat "$WORK/out")"
grep -q "running Timewarrior interval" "$WORK/out" || fail "dry run: no warning about the running interval"
[ "$("$timectl" projects --json | check count)" = 0 ] || fail "a dry run changed the data"
"$timectl" import timewarrior > "$WORK/out" || fail "import refused"
grep -q "Imported 6 sessions" "$WORK/out" || fail "import: $(cat "$WORK/out")"
"$timectl" import timewarrior | grep -q "Imported 0 sessions (6 skipped)" || fail "a re-import added sessions"
[ "$(week_total)" = "$(check hms "$tw_week")" ] || fail "Timewarrior's week: $tw_week, ours: $(week_total) s"
"$timectl" sessions --from 2025-01-01 --to 2026-01-01 --json > "$WORK/sessions.json"
check session "$WORK/sessions.json" Night 2025-10-26T01:30:00+02:00 - ""
check session "$WORK/sessions.json" Spring 2025-03-30T01:00:00+01:00 5400 ""
check session "$WORK/sessions.json" 'Client, "Big"' 2025-11-25T09:00:00+01:00 4500 'fixed "bug", commas, and a newline #Reviews'
check session "$WORK/sessions.json" Writing 2025-11-24T22:00:00+01:00 12600 '#tag_with_space'
check session "$WORK/sessions.json" Writing 2025-11-27T14:00:00+01:00 5400 '#draft'
check session "$WORK/sessions.json" Timewarrior 2025-11-26T10:00:00+01:00 3600 ''
say "   6 intervals, week $tw_week as timew summary says, re-import adds nothing"

say "-- A bad Timewarrior file is refused whole, naming file and line"
mkdir -p "$WORK/bad"
cp "$TIMEWARRIORDB/data/2025-11.data" "$WORK/bad/2025-11.data"
printf 'inc 20251130T090000Z - 20251130T100000Z # ok\ninc 2025-11-30 broken\n' >> "$WORK/bad/2025-11.data"
if "$timectl" import timewarrior "$WORK/bad" 2> "$WORK/err"; then fail "a bad file was accepted"; fi
grep -q "2025-11.data, line $(grep -c '' "$WORK/bad/2025-11.data")" "$WORK/err" || fail "the error names no file and line: $(cat "$WORK/err")"
[ "$("$timectl" sessions --from 2025-01-01 --to 2026-01-01 --json | check count)" = 6 ] || fail "a refused import changed the data"

say "-- Exports of that store"
"$timectl" export csv -o "$WORK/export.csv"
"$timectl" export json -o "$WORK/export.json"
"$timectl" export ical -o "$WORK/export.ics"
"$timectl" export toggl -o "$WORK/export-toggl.csv"
"$VENV/bin/python" scripts/exchange/check.py ical "$WORK/export.ics" 6
check csv "$WORK/export.csv" 6
check toggl "$WORK/export-toggl.csv" 6
"$timectl" export ical -o "$WORK/again.ics"
[ "$(grep UID "$WORK/export.ics")" = "$(grep UID "$WORK/again.ics")" ] || fail "iCalendar UIDs changed between exports"
"$timectl" projects --json > "$WORK/projects-before.json"
"$timectl" sessions --from 2025-01-01 --to 2026-01-01 --json > "$WORK/sessions-before.json"

say "-- json and csv read back into empty stores"
start_agent from-json
"$timectl" import json "$WORK/export.json" | grep -q "Imported 6 sessions" || fail "json import"
"$timectl" projects --json > "$WORK/projects-after.json"
"$timectl" sessions --from 2025-01-01 --to 2026-01-01 --json > "$WORK/sessions-after.json"
check same "$WORK/projects-before.json" "$WORK/projects-after.json" "$WORK/sessions-before.json" "$WORK/sessions-after.json"
"$timectl" import json "$WORK/export.json" | grep -q "Imported 0 sessions (6 skipped)" || fail "json re-import added sessions"
start_agent from-csv
"$timectl" import csv "$WORK/export.csv" | grep -q "Imported 6 sessions" || fail "csv import"
[ "$(week_total)" = "$(check hms "$tw_week")" ] || fail "the csv round trip changed the week"
"$timectl" import csv "$WORK/export.csv" | grep -q "Imported 0 sessions (6 skipped)" || fail "csv re-import added sessions"
say "   same projects and sessions record for record; re-imports add nothing"

say "-- Watson import"
start_agent watson
"$timectl" import watson > "$WORK/out" || fail "watson import refused"
grep -q "Imported 4 sessions" "$WORK/out" || fail "watson import: $(cat "$WORK/out")"
grep -q "running frame (Running" "$WORK/out" || fail "no warning about Watson's running frame"
"$timectl" import watson | grep -q "Imported 0 sessions (4 skipped)" || fail "a Watson re-import added sessions"
[ "$(week_total)" = "$watson_week" ] || fail "Watson's week: $watson_week s, ours: $(week_total) s"
"$timectl" sessions --from 2025-01-01 --to 2026-01-01 --json > "$WORK/sessions.json"
check session "$WORK/sessions.json" Night 2025-10-26T01:30:00+02:00 - ""
check session "$WORK/sessions.json" Writing 2025-11-24T22:00:00+01:00 12600 '#tag_with_space #draft'
say "   4 frames, week $watson_week s as watson report says, re-import adds nothing"

say "-- Hamster import"
start_agent hamster
"$timectl" import hamster > "$WORK/out" || fail "hamster import refused"
grep -q "Imported 6 sessions" "$WORK/out" || fail "hamster import: $(cat "$WORK/out")"
grep -q "running activity Running" "$WORK/out" || fail "no warning about Hamster's running activity"
"$timectl" import hamster | grep -q "Imported 0 sessions (6 skipped)" || fail "a Hamster re-import added sessions"
[ "$(week_total)" = "$hamster_week" ] || fail "Hamster's week: $hamster_week s, ours: $(week_total) s"
"$timectl" categories | grep -qx "Work" || fail "Hamster's category was not created"
"$timectl" sessions --from 2025-01-01 --to 2026-01-01 --json > "$WORK/sessions.json"
# The contract's reading of local times: ambiguous = first occurrence, skipped = moved forward.
check session "$WORK/sessions.json" Night 2025-10-26T01:30:00+02:00 3600 ""
check session "$WORK/sessions.json" Night 2025-10-26T02:40:00+02:00 7200 ""
check session "$WORK/sessions.json" Spring 2025-03-30T03:30:00+02:00 1800 ""
check session "$WORK/sessions.json" Writing 2025-11-24T22:00:00+01:00 12600 'Draft, "chapter 2"
second line #draft #tag_with_space'
check session "$WORK/sessions.json" 'Client, "Big"' 2025-11-25T09:00:00+01:00 4500 ''
say "   6 facts, week $hamster_week s as Hamster computes it, DST nights read per the contract"

stop_agent
say "Exchange tests passed."
