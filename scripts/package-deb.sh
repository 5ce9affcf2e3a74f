#!/usr/bin/env bash
# Builds the Debian packages with debhelper (debian/ folder): a release build with the Swift
# standard library linked in statically, Depends computed by dpkg-shlibdeps from the binaries.
#   time-tracker-agent_<version>_amd64.deb   time-agent, timectl and their files; no GTK
#   time-tracker_<version>_amd64.deb         the window (GTK 4 + libadwaita); depends on the agent's
#   scripts/package-deb.sh [--out DIR]     the .debs go to DIR (default .build/deb); their paths
#                                          are printed on stdout, the agent's first
# The version is TimeVersion.string in Sources/TimeVersion/Version.swift; debian/changelog's
# newest entry and the man pages must name the same version, or nothing is built.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

out=".build/deb"
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="${2:?--out needs a folder}"; shift ;;
        --out=*) out="${1#--out=}" ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) say "package-deb.sh: unknown option $1 (see --help)"; exit 2 ;;
    esac
    shift
done

# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES $DEB_PACKAGES
ensure_swift

version="$(scripts/version.sh)"
scripts/version.sh --check > /dev/null

# Build in a copy of the tree under .build, so that dpkg-buildpackage's output (written to the
# parent folder) and debhelper's staging stay out of the source tree. The copy keeps its own
# .build between runs, so a second package build is incremental.
work="$PWD/.build/deb-build"
src="$work/time-tracker-$version"
mkdir -p "$src"
find "$work" -mindepth 1 -maxdepth 1 ! -name "time-tracker-$version" -exec rm -rf {} +
find "$src" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
tar --exclude=./.build --exclude=./.git --exclude=./.swiftpm -cf - . | tar -xf - -C "$src"

say "== Building time-tracker-agent and time-tracker $version (release, static Swift standard library)"
(cd "$src" && dpkg-buildpackage -b -us -uc --no-sign >&2)

debs=("time-tracker-agent_${version}_amd64.deb" "time-tracker_${version}_amd64.deb")
for deb in "${debs[@]}"; do
    [ -f "$work/$deb" ] || { say "dpkg-buildpackage made no $deb"; exit 1; }
done

# The binaries must need no Swift runtime library: only what Debian ships.
staged="$work/staged"
rm -rf "$staged"
for deb in "${debs[@]}"; do dpkg-deb -x "$work/$deb" "$staged"; done
for binary in "$staged/usr/bin/time-agent" "$staged/usr/bin/timectl" "$staged/usr/bin/time-tracker"; do
    needed="$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
    if grep -E '^lib(swift|Foundation|dispatch|BlocksRuntime|_FoundationICU)' <<<"$needed"; then
        say "$(basename "$binary") needs the Swift runtime libraries above: the static stdlib was not linked"
        exit 1
    fi
done
rm -rf "$staged"

mkdir -p "$out"
for deb in "${debs[@]}"; do
    cp "$work/$deb" "$out/$deb"
    say "Built $out/$deb ($(du -k "$out/$deb" | cut -f1) KiB)"
    say "    Depends: $(dpkg-deb -f "$out/$deb" Depends)"
done
for deb in "${debs[@]}"; do printf '%s\n' "$out/$deb"; done
