#!/usr/bin/env bash
# The tray icon on real panels, all headless, each with Time's own icons installed under a
# prefix as scripts/install.sh lays them out (so the agent names their folder, IconThemePath):
#   1. xfce4-panel's systray plugin under Xvfb (its StatusNotifierWatcher and host, menus through
#      libdbusmenu-gtk3): our icon appears, a right click opens our menu, choosing Pause pauses
#      the timer and the icon changes.
#   2. waybar's tray under headless sway (as a throwaway user when run as root: sway refuses
#      root): waybar owns the watcher, the item registers, registers again after a waybar
#      restart, and our desktop/waybar custom module runs next to it.
#   3. GNOME Shell 43 with the AppIndicator extension (scripts/tray-gnome.sh).
#   4. KDE Plasma 5.27's system tray (scripts/tray-plasma.sh).
# The week's chart is drawn too (timectl report --png). Pictures go to $TIME_TEST_OUTPUT (default
# .build/test-output); --update-docs also copies them to docs/tray-xfce.png, docs/tray-waybar.png,
# docs/tray-gnome.png, docs/tray-plasma.png and docs/week.png. --no-build uses the existing debug
# build; --host xfce|waybar|gnome|plasma (repeatable) runs only those hosts.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift

build=1 update_docs=0 hosts=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0 ;;
        --update-docs) update_docs=1 ;;
        --host) hosts+=("${2:?--host needs xfce, waybar, gnome or plasma}"); shift ;;
        *) say "usage: scripts/test-tray.sh [--no-build] [--update-docs] [--host xfce|waybar|gnome|plasma]..."; exit 2 ;;
    esac
    shift
done
[ ${#hosts[@]} -gt 0 ] || hosts=(xfce waybar gnome plasma)
# shellcheck disable=SC2086
ensure_packages $TRAY_PACKAGES
[ "$build" -eq 1 ] && swift build >&2
bin="$(swift build --show-bin-path)"
output="${TIME_TEST_OUTPUT:-$PWD/.build/test-output}"
mkdir -p "$output"

for host in "${hosts[@]}"; do
    case "$host" in
        xfce) say "== Tray on xfce4-panel (systray plugin) under Xvfb" ;;
        waybar) say "== Tray and custom module on waybar under headless sway" ;;
        gnome) say "== Tray on GNOME Shell with the AppIndicator extension (headless)" ;;
        plasma) say "== Tray on KDE Plasma's system tray under Xvfb" ;;
        *) say "test-tray.sh: no host called $host (xfce, waybar, gnome, plasma)"; exit 2 ;;
    esac
    "scripts/tray-$host.sh" "$bin" "$output" || { say "tray check failed on $host (above)"; exit 1; }
done

if [ "$update_docs" -eq 1 ]; then
    for picture in tray-xfce tray-waybar tray-gnome tray-plasma week; do
        [ -f "$output/$picture.png" ] && cp "$output/$picture.png" "docs/$picture.png" && say "docs/$picture.png updated"
    done
fi
say "Tray checks passed (screenshots in $output)."
