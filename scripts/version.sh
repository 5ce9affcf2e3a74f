#!/usr/bin/env bash
# Prints the version of Time, read from its one place: TimeVersion.string in
# Sources/TimeVersion/Version.swift.
#   scripts/version.sh            prints it
#   scripts/version.sh --check    also checks that debian/changelog's newest entry and the man
#                                 pages name it, and says what to change when they do not
set -euo pipefail
cd "$(dirname "$0")/.."

version="$(sed -n 's/^ *public static let string = "\([^"]*\)".*/\1/p' Sources/TimeVersion/Version.swift)"
[ -n "$version" ] || { echo "version.sh: no 'public static let string = \"…\"' in Sources/TimeVersion/Version.swift" >&2; exit 1; }
if [ "${1:-}" = --check ]; then
    problems=0
    changelog="$(sed -n '1s/^time-tracker (\([^)]*\)).*/\1/p' debian/changelog)"
    if [ "$changelog" != "$version" ]; then
        echo "version.sh: debian/changelog's newest entry is ${changelog:-unreadable}, the code says $version:" >&2
        echo "    add an entry: dch --newversion $version --distribution unstable" >&2
        problems=1
    fi
    for page in man/*.1; do
        if ! sed -n 1p "$page" | grep -qF "\"Time $version\""; then
            echo "version.sh: $page's .TH line does not say \"Time $version\"" >&2
            problems=1
        fi
    done
    [ "$problems" -eq 0 ] || exit 1
fi
printf '%s\n' "$version"
