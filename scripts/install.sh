#!/usr/bin/env bash
# Installs time-agent, timectl, the window time-tracker and their desktop files under a prefix
# (default ~/.local):
#   scripts/install.sh [--prefix DIR] [--autostart]     install (or update); --autostart: start
#                                          the agent at login (an XDG autostart entry, as the package)
#   scripts/install.sh [--prefix DIR] --uninstall       remove what install put there
#   --no-window   the agent and timectl only (no GTK needed): what happens anyway, with a message,
#                 where GTK 4 and libadwaita's development files (pkg-config) are missing
#   --debug installs the debug build (what scripts/test.sh already built), for testing
# The systemd user unit goes to ~/.config/systemd/user (for a user prefix), where D-Bus
# activation finds it (SystemdService=); it needs no enabling.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

prefix="$HOME/.local"
action=install
autostart=no
window=yes
configuration=release
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a folder}"; shift ;;
        --prefix=*) prefix="${1#--prefix=}" ;;
        --uninstall) action=uninstall ;;
        --autostart) autostart=yes ;;
        --no-window) window=no ;;
        --debug) configuration=debug ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) say "install.sh: unknown option $1 (see --help)"; exit 2 ;;
    esac
    shift
done

if [ "$prefix" = "$HOME/.local" ] || [ "${prefix#"$HOME"}" != "$prefix" ]; then
    unit_dir="${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user"
else
    unit_dir="$prefix/lib/systemd/user"
fi
autostart_dir="${XDG_CONFIG_HOME:-$HOME/.config}/autostart"
icon_dir="$prefix/share/icons/hicolor"
# Time's icons: data/icons/hicolor/<size>/apps/*.svg, installed under the same names.
icons=()
while IFS= read -r icon; do icons+=("${icon#data/icons/hicolor/}"); done < <(find data/icons/hicolor -name '*.svg' | sort)
files=(
    "$prefix/bin/time-agent"
    "$prefix/bin/timectl"
    "$prefix/share/dbus-1/services/io.github.timetracker.Time1.service"
    "$prefix/share/dbus-1/interfaces/io.github.timetracker.Time1.xml"
    "$prefix/bin/time-tracker"
    "$prefix/share/applications/io.github.timetracker.Time.desktop"
    "$prefix/share/dbus-1/services/io.github.timetracker.Time.service"
    "$prefix/share/metainfo/io.github.timetracker.Time.metainfo.xml"
    "$prefix/share/man/man1/time-tracker.1"
    "$prefix/share/man/man1/timectl.1"
    "$prefix/share/man/man1/time-agent.1"
    "$prefix/share/bash-completion/completions/timectl"
    "$prefix/share/zsh/site-functions/_timectl"
    "$prefix/share/fish/vendor_completions.d/timectl.fish"
    "$unit_dir/time-agent.service"
    "$autostart_dir/time-agent.desktop"
)
for icon in "${icons[@]}"; do files+=("$icon_dir/$icon"); done

# Running applications notice new icons by the folder's time; a cache there is brought up to date.
refresh_icons() {
    [ -d "$icon_dir" ] || return 0
    touch "$icon_dir"
    if [ -f "$icon_dir/icon-theme.cache" ] && command -v gtk-update-icon-cache >/dev/null 2>&1; then
        gtk-update-icon-cache -q -f -t "$icon_dir" || true
    fi
}

if [ "$action" = uninstall ]; then
    command -v systemctl >/dev/null 2>&1 && systemctl --user disable --now time-agent.service >/dev/null 2>&1 || true
    for file in "${files[@]}"; do
        [ -e "$file" ] && rm -f "$file" && say "removed $file"
    done
    refresh_icons
    say "Uninstalled. Your data stays in ${TIME_TRACKER_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/time-tracker}."
    exit 0
fi

ensure_swift
# shellcheck disable=SC2086
ensure_packages $AGENT_BUILD_PACKAGES
swift build -c "$configuration" --product time-agent >&2
swift build -c "$configuration" --product timectl >&2
# The window needs GTK 4 and libadwaita; without them the agent and timectl are still whole.
if [ "$window" = yes ] && ! pkg-config --exists gtk4 libadwaita-1 2>/dev/null; then
    window=no
    say "The window (time-tracker) is not built: GTK 4 and libadwaita's development files are missing"
    say "(Debian: sudo apt-get install $WINDOW_BUILD_PACKAGES). Installing the agent and timectl only."
fi
[ "$window" = no ] || swift build -c "$configuration" --product time-tracker >&2
bin="$(swift build -c "$configuration" --show-bin-path)"

put() { # put SOURCE DESTINATION MODE
    mkdir -p "$(dirname "$2")"
    install -m "$3" "$1" "$2"
    say "installed $2"
}
put "$bin/time-agent" "$prefix/bin/time-agent" 755
put "$bin/timectl" "$prefix/bin/timectl" 755
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
sed "s|^Exec=.*|Exec=$prefix/bin/time-agent|" dbus/io.github.timetracker.Time1.service > "$tmp/dbus.service"
put "$tmp/dbus.service" "$prefix/share/dbus-1/services/io.github.timetracker.Time1.service" 644
put dbus/io.github.timetracker.Time1.xml "$prefix/share/dbus-1/interfaces/io.github.timetracker.Time1.xml" 644
sed "s|^ExecStart=.*|ExecStart=$prefix/bin/time-agent|" desktop/time-agent.service > "$tmp/unit"
put "$tmp/unit" "$unit_dir/time-agent.service" 644
if [ "$window" = yes ]; then
    # The window, its menu entry (D-Bus activated through its service file) and its AppStream metainfo.
    put "$bin/time-tracker" "$prefix/bin/time-tracker" 755
    sed -e '/^# Installers rewrite/d' -e "s|^Exec=time-tracker|Exec=$prefix/bin/time-tracker|" \
        desktop/io.github.timetracker.Time.desktop > "$tmp/app.desktop"
    put "$tmp/app.desktop" "$prefix/share/applications/io.github.timetracker.Time.desktop" 644
    sed -e '/^# Installers rewrite/d' -e "s|^Exec=[^ ]*|Exec=$prefix/bin/time-tracker|" \
        dbus/io.github.timetracker.Time.service > "$tmp/app.service"
    put "$tmp/app.service" "$prefix/share/dbus-1/services/io.github.timetracker.Time.service" 644
    put data/io.github.timetracker.Time.metainfo.xml "$prefix/share/metainfo/io.github.timetracker.Time.metainfo.xml" 644
    put man/time-tracker.1 "$prefix/share/man/man1/time-tracker.1" 644
else
    # An update to the agent alone takes away a window installed before, which it may not match.
    for file in "$prefix/bin/time-tracker" "$prefix/share/applications/io.github.timetracker.Time.desktop" \
                "$prefix/share/dbus-1/services/io.github.timetracker.Time.service" \
                "$prefix/share/metainfo/io.github.timetracker.Time.metainfo.xml" "$prefix/share/man/man1/time-tracker.1"; do
        [ -e "$file" ] && rm -f "$file" && say "removed $file"
    done
fi
for icon in "${icons[@]}"; do put "data/icons/hicolor/$icon" "$icon_dir/$icon" 644; done
refresh_icons
[ -f man/timectl.1 ] && put man/timectl.1 "$prefix/share/man/man1/timectl.1" 644
[ -f man/time-agent.1 ] && put man/time-agent.1 "$prefix/share/man/man1/time-agent.1" 644
[ -f completions/timectl.bash ] && put completions/timectl.bash "$prefix/share/bash-completion/completions/timectl" 644
[ -f completions/_timectl ] && put completions/_timectl "$prefix/share/zsh/site-functions/_timectl" 644
[ -f completions/timectl.fish ] && put completions/timectl.fish "$prefix/share/fish/vendor_completions.d/timectl.fish" 644
if [ "$autostart" = yes ]; then
    # The package's entry (debian/rules), for this user: D-Bus activation at login.
    sed -e '/^# Installers rewrite/d' -e "s|^Exec=time-agent|Exec=$prefix/bin/time-agent|" \
        -e "s|^TryExec=.*|TryExec=$prefix/bin/time-agent|" desktop/time-agent-autostart.desktop > "$tmp/autostart"
    put "$tmp/autostart" "$autostart_dir/time-agent.desktop" 644
fi
command -v systemctl >/dev/null 2>&1 && systemctl --user daemon-reload >/dev/null 2>&1 || true
if [ "$window" = yes ]; then
    say "Done. Time is in your application menu (or run $prefix/bin/time-tracker); make sure $prefix/bin is on PATH for: timectl start Writing"
else
    say "Done (agent and timectl; no window). Make sure $prefix/bin is on PATH, then: timectl start Writing"
fi
