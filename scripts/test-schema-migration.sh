#!/usr/bin/env bash
# Writes a v2, a v3 and a v4 store with the sqlite3 command line from the checked-in fixture scripts
# (Tests/Fixtures/store-v2.sql, store-v3.sql, store-v4.sql), opens each with the current code, verifies every
# record and relationship, then writes and re-reads a note; also restores v2, v3 and v4 snapshot
# payloads; SyncSchemaTests does the same for a v7 store and snapshot, SyncMergedStateTests for a v8 store
# with sync on (v9 keeps the merged state, rebuilt once), SyncFieldNotesMigrationTests for a real v9
# store with sync on (v10's notes name the fields written), RatesAndTargetsMigrationTests for a v9
# store (Tests/Fixtures/store-v9.sql) and the v9 snapshots written beside it (v11: rates and targets);
# SyncFieldNotesMigrationTests also takes the real v9 store to v12 (sync's merged state in its own file).
# FocusMigrationTests takes a real v12 store (Tests/Fixtures/store-v12.sql) and the v12 snapshot beside it
# (Tests/Fixtures/data-v12) to v13 and snapshot v11 (the focus timer).
# Pass --no-build when the tests are already built.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES sqlite3
[ "${1:-}" = "--no-build" ] || swift build --build-tests
swift test --skip-build --filter 'TimeCoreTests\.(SchemaMigrationFixtureTests|DataSafetyTests/testVersion2To4Snapshots|MigrationTests|AwayStorageTests|SyncSchemaTests|SyncMergedStateTests/testAVersion8StoreWithSyncOnMovesForwardAndRebuildsOnce|SyncFieldNotesMigrationTests|RatesAndTargetsMigrationTests|FocusMigrationTests)'
