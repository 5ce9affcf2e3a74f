#!/usr/bin/env bash
# The durable path's own floor (docs/durable-path.md, round eight): one Pause with nothing but the
# work durability needs (the same SQLite statements on a bench store, the slot written, flushed,
# read back, the commit), in C, against the bench's floor (4 KiB written in place and flushed),
# taken in turn. What the agent spends above it is its own CPU.
#   scripts/durable-design-floor.sh [--size N] [--rounds N] [--keep DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES gcc

size=100000 rounds=2000 keep=""
while [ $# -gt 0 ]; do
    case "$1" in
        --size) size="$2"; shift ;;
        --rounds) rounds="$2"; shift ;;
        --keep) keep="$2"; shift ;;
        -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
work="${keep:-$(mktemp -d /tmp/time-design-floor.XXXXXX)}"
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT
swift build -c release --product time-bench >&2
bin="$(swift build -c release --show-bin-path)"
[ -d "$work/data-$size" ] || "$bin/time-bench" --generate "$size" "$work/data-$size" >&2
gcc -O2 -Wall -o "$work/design-floor" scripts/durable/design-floor.c -lsqlite3
rm -f "$work/store.sqlite" "$work/store.sqlite-wal" "$work/store.sqlite-shm"
cp "$work/data-$size/time.sqlite" "$work/store.sqlite"
"$work/design-floor" "$work/store.sqlite" "$work/slot" "$work/floor" "$rounds"
