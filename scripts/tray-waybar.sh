#!/usr/bin/env bash
# The tray on waybar under headless sway, run as a throwaway user when run as root (sway refuses
# root): waybar owns the watcher, the item registers with our icon (from where the agent says,
# not the fallback pixmap), registers again after a waybar restart, and our desktop/waybar
# custom module runs next to it (scripts/tray-waybar-session.sh is that user's session).
# Run by scripts/test-tray.sh:
#   scripts/tray-waybar.sh BIN OUTPUT    picture: OUTPUT/tray-waybar.png
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/bus-waits.sh
. scripts/tray-common.sh
bin="${1:?usage: scripts/tray-waybar.sh BIN OUTPUT}" output="${2:?usage: scripts/tray-waybar.sh BIN OUTPUT}"

work="$(mktemp -d /tmp/time-waybar.XXXXXX)"
chmod 755 "$work"
user=""
cleanup() {
    if [ -n "$user" ]; then
        # Everything that user runs is ours: the session started it.
        pkill -KILL -u "$user" 2>/dev/null || true
        userdel "$user" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
fail() { say "waybar check failed: $*"; exit 1; }

sway_dir="$work/sway"
mkdir -p "$sway_dir/home/.config" "$sway_dir/runtime"
install_prefix "$bin" "$sway_dir"   # the session's bin/ and share/icons/
cp desktop/waybar/config.jsonc "$sway_dir/time-module.jsonc"
cat desktop/waybar/style.css > "$sway_dir/style.css"
cat >> "$sway_dir/style.css" <<'CSS'
* { font-family: "DejaVu Sans", sans-serif; font-size: 14px; }
window#waybar { background: #1e1e2e; color: #cdd6f4; }
#tray, #custom-time { padding: 0 10px; }
CSS
cat > "$sway_dir/waybar.jsonc" <<JSON
{
    "include": ["$sway_dir/time-module.jsonc"],
    "layer": "top",
    "position": "top",
    "height": 30,
    "modules-left": ["custom/time"],
    "modules-right": ["tray"],
    "tray": { "icon-size": 20, "spacing": 8 }
}
JSON
cat > "$sway_dir/sway.config" <<'SWAY'
output HEADLESS-1 resolution 640x120
default_border none
xwayland disable
SWAY
cp scripts/tray-waybar-session.sh "$sway_dir/session.sh"
cp scripts/bus-waits.sh scripts/tray-common.sh "$sway_dir/"
if [ "$(id -u)" -eq 0 ]; then
    user="timetray$$"
    useradd --no-create-home --home-dir "$sway_dir/home" --shell /usr/sbin/nologin "$user"
    chown -R "$user:" "$sway_dir"
    run_as_user() { runuser -u "$user" -- "$@"; }
else
    run_as_user() { "$@"; }
fi
chmod 700 "$sway_dir/runtime"
run_as_user env -i PATH="$sway_dir/bin:/usr/local/bin:/usr/bin:/bin" HOME="$sway_dir/home" \
    XDG_RUNTIME_DIR="$sway_dir/runtime" XDG_CONFIG_HOME="$sway_dir/home/.config" TZ=UTC LANG=C.UTF-8 NO_AT_BRIDGE=1 GTK_A11Y=none \
    bash "$sway_dir/session.sh" "$sway_dir" || fail "waybar under sway (log above)"
cp "$sway_dir/tray-waybar.png" "$output/tray-waybar.png"
