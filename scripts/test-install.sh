#!/usr/bin/env bash
# Installs the debug build into a throwaway HOME: first with --no-window (the agent alone, as
# without GTK), then whole with --autostart (the window, its menu entry, its D-Bus activation file
# and metainfo too); runs the login's command that systemd-xdg-autostart-generator makes of the
# installed autostart entry, so that a private session bus starts the installed agent through the
# installed D-Bus activation file, then uninstalls and checks nothing is left.
# Run by scripts/test.sh after the build.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift

home="$(mktemp -d /tmp/time-install.XXXXXX)"
bus_pid=""
cleanup() { [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null; rm -rf "$home"; }
trap cleanup EXIT
fail() { say "install check failed: $*"; exit 1; }

run_install() { env -u XDG_CONFIG_HOME -u XDG_DATA_HOME -u TIME_TRACKER_DATA_DIR HOME="$home" scripts/install.sh "$@"; }
prefix="$home/.local"
window_files=(bin/time-tracker share/applications/io.github.timetracker.Time.desktop
              share/dbus-1/services/io.github.timetracker.Time.service share/metainfo/io.github.timetracker.Time.metainfo.xml
              share/man/man1/time-tracker.1)

# The agent alone, as on a machine without GTK: no window, and install.sh says so.
run_install --debug --no-window > "$home/install.log" 2>&1 || { cat "$home/install.log" >&2; fail "install.sh --no-window exited non-zero"; }
[ -x "$prefix/bin/time-agent" ] && [ -x "$prefix/bin/timectl" ] || fail "install.sh --no-window did not install the agent and timectl"
for file in "${window_files[@]}"; do [ ! -e "$prefix/$file" ] || fail "install.sh --no-window installed $prefix/$file"; done
grep -q 'no window' "$home/install.log" || fail "install.sh --no-window did not say that the window was left out: $(tail -3 "$home/install.log")"

run_install --debug --autostart > "$home/install.log" 2>&1 || { cat "$home/install.log" >&2; fail "install.sh exited non-zero"; }
for file in bin/time-agent bin/timectl share/dbus-1/services/io.github.timetracker.Time1.service \
            share/dbus-1/interfaces/io.github.timetracker.Time1.xml share/applications/io.github.timetracker.Time.desktop \
            share/man/man1/timectl.1 share/man/man1/time-agent.1 share/bash-completion/completions/timectl share/zsh/site-functions/_timectl \
            share/fish/vendor_completions.d/timectl.fish share/icons/hicolor/scalable/apps/io.github.timetracker.Time.svg \
            share/icons/hicolor/symbolic/apps/io.github.timetracker.Time-running-symbolic.svg "${window_files[@]}"; do
    [ -f "$prefix/$file" ] || fail "$prefix/$file was not installed"
done
[ -x "$prefix/bin/time-tracker" ] || fail "the window $prefix/bin/time-tracker is not executable"
# The window: its menu entry (visible, D-Bus activated) and its activation file run the installed binary.
entry="$prefix/share/applications/io.github.timetracker.Time.desktop"
grep -qx "Exec=$prefix/bin/time-tracker" "$entry" || fail "the desktop entry does not run the installed window: $(grep '^Exec=' "$entry")"
grep -qx 'DBusActivatable=true' "$entry" || fail "the desktop entry is not DBusActivatable"
! grep -q '^NoDisplay=true' "$entry" || fail "the desktop entry is hidden from the menus (NoDisplay=true)"
grep -qx 'X-GNOME-UsesNotifications=true' "$entry" || fail "the desktop entry lost X-GNOME-UsesNotifications"
if command -v desktop-file-validate >/dev/null 2>&1; then
    desktop-file-validate "$entry" >&2 || fail "desktop-file-validate refuses $entry (above)"
fi
app_service="$prefix/share/dbus-1/services/io.github.timetracker.Time.service"
grep -qx 'Name=io.github.timetracker.Time' "$app_service" || fail "the window's activation file does not name io.github.timetracker.Time"
grep -qx "Exec=$prefix/bin/time-tracker --gapplication-service" "$app_service" \
    || fail "the window's activation file does not start the installed window: $(grep '^Exec=' "$app_service")"
if command -v appstreamcli >/dev/null 2>&1; then
    appstreamcli validate --no-net "$prefix/share/metainfo/io.github.timetracker.Time.metainfo.xml" >&2 \
        || fail "appstreamcli refuses the installed metainfo (above)"
fi
[ -f "$home/.config/systemd/user/time-agent.service" ] || fail "the systemd user unit was not installed"
[ -f "$home/.config/autostart/time-agent.desktop" ] || fail "the autostart entry was not installed"
grep -qx "Exec=$prefix/bin/time-agent --activate" "$home/.config/autostart/time-agent.desktop" \
    || fail "the autostart entry does not start the installed agent through the bus"
grep -qx "TryExec=$prefix/bin/time-agent" "$home/.config/autostart/time-agent.desktop" \
    || fail "the autostart entry's TryExec is not the installed agent"
grep -qx "Exec=$prefix/bin/time-agent" "$prefix/share/dbus-1/services/io.github.timetracker.Time1.service" \
    || fail "the activation file does not point at the installed agent"
grep -qx "ExecStart=$prefix/bin/time-agent" "$home/.config/systemd/user/time-agent.service" \
    || fail "the systemd unit does not point at the installed agent"
bash -n "$prefix/share/bash-completion/completions/timectl" || fail "the bash completion does not parse"

# D-Bus activation through the installed service file, with the installed binaries.
cat > "$home/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$home</listen>
  <servicedir>$prefix/share/dbus-1/services</servicedir>
  <policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy>
</busconfig>
CONF
output="$(HOME="$home" dbus-daemon --config-file="$home/bus.conf" --fork --print-address=1 --print-pid=1)"
address="$(sed -n 1p <<<"$output")"
bus_pid="$(sed -n 2p <<<"$output")"
export DBUS_SESSION_BUS_ADDRESS="$address"

# The login start, as systemd's generator makes it of the user's autostart entry: its command
# has the bus start the installed agent.
generator=/usr/lib/systemd/user-generators/systemd-xdg-autostart-generator
if [ -x "$generator" ]; then
    mkdir -p "$home/generated"
    HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_CONFIG_DIRS="$home/no-system-entries" \
        "$generator" "$home/generated" "$home/generated" "$home/generated" 2> "$home/generator.log" || fail "the generator failed"
    unit="$home/generated/app-time\\x2dagent@autostart.service"
    [ -f "$unit" ] || fail "the generator made no unit of the autostart entry: $(cat "$home/generator.log")"
    login="$(sed -n 's/^ExecStart=:\{0,1\}//p' "$unit")"
    [ "$login" = "$prefix/bin/time-agent --activate" ] || fail "the login would run: $login"
    # shellcheck disable=SC2086
    HOME="$home" $login 2> "$home/login.log" || fail "the login's command failed: $(cat "$home/login.log")"
    owner_pid="$(dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetConnectionUnixProcessID string:io.github.timetracker.Time1 | awk '{print $2}')"
    [ -n "$owner_pid" ] || fail "no agent runs after the login's command"
    ! tr '\0' ' ' < "/proc/$owner_pid/cmdline" | grep -q -- --activate || fail "the login's command became the agent: the bus did not start it"
else
    say "install check: the login start is not checked: $generator is missing (Debian package systemd)"
fi
status="$(HOME="$home" "$prefix/bin/timectl" status --format json)" || fail "timectl could not reach an activated agent"
grep -q '"state"' <<<"$status" || fail "unexpected status: $status"
HOME="$home" "$prefix/bin/timectl" projects add Installed > /dev/null || fail "the activated agent refused a change"
[ -f "$home/.local/share/time-tracker/time.sqlite" ] || fail "the activated agent did not keep its data in the default folder"
kill "$bus_pid"; bus_pid=""

run_install --uninstall > "$home/uninstall.log" 2>&1 || fail "install.sh --uninstall exited non-zero"
left="$(find "$prefix/bin" "$prefix/share" "$home/.config" -type f 2>/dev/null | grep -v '/time-tracker/' || true)"
[ -z "$left" ] || fail "uninstall left: $left"
[ -f "$home/.local/share/time-tracker/time.sqlite" ] || fail "uninstall removed the user's data"
say "install check: installed, started as at a login and over D-Bus, uninstalled; the data was kept"
