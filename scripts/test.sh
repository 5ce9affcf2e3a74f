#!/usr/bin/env bash
# Runs every test: unit tests, end-to-end tests on private buses with a real notification
# server, the data-safety and schema-migration checks, and the quick benchmark.
# Installs the Debian packages it needs when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES $TEST_PACKAGES

export TIME_TEST_OUTPUT="${TIME_TEST_OUTPUT:-$PWD/.build/test-output}"
mkdir -p "$TIME_TEST_OUTPUT"

say "== Building"
swift build --build-tests

say "== Unit and end-to-end tests"
# The full log is kept; the screen shows results, not every "started" line.
set +e
swift test --skip-build 2>&1 | tee "$TIME_TEST_OUTPUT/swift-test.log" \
    | grep --line-buffered -vE "^Test Case '.*' started|^Test Suite '.*' started"
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || { say "swift test failed (full log: $TIME_TEST_OUTPUT/swift-test.log)"; exit "$status"; }

say "== The same client and contract tests on dbus-broker"
scripts/test-dbus-broker.sh --no-build

say "== Data-safety checks"
scripts/test-data-safety.sh --no-build

say "== Schema-migration checks"
scripts/test-schema-migration.sh --no-build

say "== Import from the real Hamster, Timewarrior and Watson; exports read back"
scripts/test-exchange.sh --no-build

say "== Tray icon on GNOME Shell with the AppIndicator extension, Plasma's system tray, xfce4-panel and waybar under sway"
scripts/test-tray.sh --no-build

say "== The window, driven over AT-SPI under Xvfb with the real agent"
scripts/test-window.sh --no-build

say "== The keyboard shortcut on GNOME (a key pressed through Mutter's RemoteDesktop), Xfce and KDE (xdotool on Xvfb)"
scripts/test-shortcuts.sh --no-build

say "== Sync across devices: two agents, two real Syncthing instances on 127.0.0.1"
scripts/test-sync.sh --no-build

say "== Install, the login start and D-Bus activation of the installed agent, uninstall"
scripts/test-install.sh

say "== The Debian package: lintian, hardening, install, the login start, D-Bus activation, remove, reinstall"
scripts/test-deb.sh

if [ -x scripts/bench.sh ]; then
    say "== Quick benchmark (so it never rots)"
    scripts/bench.sh --quick --debug
    say "== The durable path's bench, split from both sides (so it never rots either; numbers of a debug build)"
    scripts/bench.sh --debug --durable-only --sizes 1000 --split
fi
say "All tests passed."
