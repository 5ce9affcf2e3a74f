#!/usr/bin/env bash
# Runs the client side of the contract on dbus-broker, the session bus of Fedora, Arch and others,
# as scripts/test.sh runs it on dbus-daemon: timectl end to end (QuickCall with every address form
# it speaks), DBusKit and QuickCall, and the agent's contract tests (calls, properties,
# PropertiesChanged, errors, undo, concurrent clients). The same tests, on a private dbus-broker
# per test (TIME_TEST_BUS=dbus-broker; Tests/TestSupport/BrokerBus.swift says how it runs without
# systemd). dbus-broker activates services only through systemd, so these tests start the agent
# themselves.
#   scripts/test-dbus-broker.sh [--no-build]     (run by scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES $BROKER_PACKAGES

[ "${1:-}" = --no-build ] || swift build --build-tests >&2

# The bus runs in a mount namespace of its own; as anyone but root that takes a user namespace.
if [ "$(id -u)" -ne 0 ] && ! unshare --map-root-user --mount true 2>/dev/null; then
    say "dbus-broker tests: SKIPPED: 'unshare --map-root-user --mount' is refused here (run as root, or allow"
    say "unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1)"
    exit 0
fi

tests='TimectlTests|DBusKitTests|AgentTests\.(PropertiesTests|TimerStateTests|ArgumentTests|IntrospectionTests|UndoAgentTests|ConcurrencyTests|LoginStartTests)'
output="${TIME_TEST_OUTPUT:-$PWD/.build/test-output}"
mkdir -p "$output"
set +e
TIME_TEST_BUS=dbus-broker swift test --skip-build --filter "$tests" 2>&1 | tee "$output/swift-test-dbus-broker.log" \
    | grep --line-buffered -vE "^Test Case '.*' started|^Test Suite '.*' started"
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || { say "the tests failed on dbus-broker (full log: $output/swift-test-dbus-broker.log)"; exit "$status"; }
say "dbus-broker: timectl, DBusKit, QuickCall and the agent's contract pass"
