#!/usr/bin/env bash
# Runs the production data-safety code against real files: snapshots (verified, checksummed,
# deduplicated, retained), raw archives, quarantine and restore with record-by-record comparison
# (record-loss detection), read-only lock, full disk, and the duration-input and
# note-normalization rules. Pass --no-build when the tests are already built.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES sqlite3
[ "${1:-}" = "--no-build" ] || swift build --build-tests
swift test --skip-build --filter 'TimeCoreTests\.(DataSafetyTests|InputTests)'
