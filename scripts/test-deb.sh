#!/usr/bin/env bash
# Builds the Debian package once, checks it with lintian (any error or warning fails, and the
# package carries no override) and checks that timectl is a PIE with RELRO and BIND_NOW that
# loads glibc alone;
# then, as root, installs it with apt-get, starts the agent the way a login does (systemd's own
# systemd-xdg-autostart-generator turns the installed autostart entry into a unit, whose command
# runs on a private session bus with a tray watcher: the bus starts the installed agent, which
# registers its item), checks the two ways to turn that off, lets the bus start the agent on a
# first call, drives it with /usr/bin/timectl, removes the package (the user's data folder must
# stay byte for byte as it was, and the autostart entry left as a configuration file starts
# nothing), reinstalls it (the data is there), and finally purges it so the machine is left as
# it was.
#   scripts/test-deb.sh     (run by scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES $DEB_PACKAGES dbus-daemon dbus-bin systemd

output="${TIME_TEST_OUTPUT:-$PWD/.build/test-output}"
mkdir -p "$output"
tmp="$(mktemp -d /tmp/time-deb.XXXXXX)"
bus_pid=""
watcher_pid=""
installed_by_us=no
fail() { say "package check failed: $*"; exit 1; }

stop_bus() {
    [ -n "$bus_pid" ] || return 0
    local agent
    agent="$(agent_pid 2>/dev/null || true)"
    kill "$bus_pid" 2>/dev/null || true
    bus_pid=""
    # The agent exits when its bus closes; wait for it so its files are settled.
    if [ -n "$agent" ]; then
        for _ in $(seq 100); do kill -0 "$agent" 2>/dev/null || break; sleep 0.1; done
        kill -0 "$agent" 2>/dev/null && { kill "$agent"; say "the agent outlived its bus"; return 1; }
    fi
    return 0
}
apt() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y "$@"; }
cleanup() {
    stop_bus || true
    [ -z "$watcher_pid" ] || kill "$watcher_pid" 2>/dev/null || true
    if [ "$installed_by_us" = yes ]; then apt purge time-tracker > "$tmp/cleanup.log" 2>&1 || cat "$tmp/cleanup.log" >&2; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

say "== Debian package: build, lintian, hardening, install, login start, D-Bus activation, remove, reinstall, purge"
version="$(scripts/version.sh --check)"

say "-- building the package"
deb="$(scripts/package-deb.sh)"
deb="$PWD/$deb"
[ "$(dpkg-deb -f "$deb" Package)" = time-tracker ] || fail "the package is not called time-tracker"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "the package's version is not $version"
depends="$(dpkg-deb -f "$deb" Depends)"
grep -q 'libdbus-1-3' <<<"$depends" || fail "Depends lacks libdbus-1-3 (dpkg-shlibdeps did not run?): $depends"
# The agent loads librsvg with dlopen (invisible to dpkg-shlibdeps): the package must name it.
dpkg-deb -f "$deb" Recommends | grep -q 'librsvg2-2' || fail "Recommends lacks librsvg2-2, which the agent loads for the week's chart"
# Vanilla GNOME shows no tray without the extension.
dpkg-deb -f "$deb" Recommends | grep -q 'gnome-shell-extension-appindicator' || fail "Recommends lacks gnome-shell-extension-appindicator"
say "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB; Depends: $depends"

say "-- lintian"
set +e
lintian --fail-on error,warning --display-info "$deb" > "$output/lintian.txt" 2>&1
lintian_status=$?
set -e
grep -v 'running with root privileges is not recommended' "$output/lintian.txt" >&2 || true
[ "$lintian_status" -eq 0 ] || fail "lintian reported errors or warnings (above; also in $output/lintian.txt)"

files=(
    /etc/xdg/autostart/time-agent.desktop
    /usr/bin/time-agent
    /usr/bin/timectl
    /usr/share/dbus-1/services/io.github.timetracker.Time1.service
    /usr/share/dbus-1/interfaces/io.github.timetracker.Time1.xml
    /usr/lib/systemd/user/time-agent.service
    /usr/share/applications/io.github.timetracker.Time.desktop
    /usr/share/icons/hicolor/scalable/apps/io.github.timetracker.Time.svg
    /usr/share/icons/hicolor/symbolic/apps/io.github.timetracker.Time-symbolic.svg
    /usr/share/icons/hicolor/symbolic/apps/io.github.timetracker.Time-running-symbolic.svg
    /usr/share/icons/hicolor/symbolic/apps/io.github.timetracker.Time-paused-symbolic.svg
    /usr/share/icons/hicolor/symbolic/apps/io.github.timetracker.Time-idle-symbolic.svg
    /usr/share/man/man1/time-agent.1.gz
    /usr/share/man/man1/timectl.1.gz
    /usr/share/bash-completion/completions/timectl
    /usr/share/zsh/vendor-completions/_timectl
    /usr/share/fish/vendor_completions.d/timectl.fish
    /usr/share/doc/time-tracker/copyright
    /usr/share/doc/time-tracker/changelog.gz
)
listing="$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\.||')"
for file in "${files[@]}"; do
    grep -qx "$file" <<<"$listing" || fail "the package does not contain $file"
done

! grep -q '^/usr/share/lintian/overrides' <<<"$listing" || fail "the package carries a lintian override"
dpkg-deb --ctrl-tarfile "$deb" | tar -xOf - ./conffiles 2>/dev/null | grep -qx /etc/xdg/autostart/time-agent.desktop \
    || fail "/etc/xdg/autostart/time-agent.desktop is not a configuration file of the package"

# One version everywhere: the package, and --version of the packaged programs (the D-Bus
# Version property is checked below, once the installed agent runs).
dpkg-deb -x "$deb" "$tmp/staged"

say "-- timectl: a hardened PIE whose only shared library is glibc"
elf="$(readelf -h -l -d -W "$tmp/staged/usr/bin/timectl")"
grep -Eq '^ *Type: *DYN ' <<<"$elf" || fail "timectl is not position-independent (ELF type $(sed -n 's/^ *Type: *//p' <<<"$elf"))"
grep -q 'GNU_RELRO' <<<"$elf" || fail "timectl has no RELRO segment"
grep -Eq '\(FLAGS_1\) .*\bNOW\b' <<<"$elf" || fail "timectl is not linked with BIND_NOW"
needed="$(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<<"$elf" | sort | tr '\n' ' ')"
[ "$needed" = "ld-linux-x86-64.so.2 libc.so.6 libm.so.6 " ] || fail "timectl should load glibc alone, it loads: $needed"
! grep -Eq '\((RUNPATH|RPATH)\)' <<<"$elf" || fail "timectl has a search path of its own"
# Everything hardening-check knows but Intel CET, for which no code here is built (nor the agent's).
hardening-check --nocfprotection "$tmp/staged/usr/bin/timectl" >&2 || fail "hardening-check refuses timectl (above)"
for program in time-agent timectl; do
    said="$("$tmp/staged/usr/bin/$program" --version)"
    [ "$said" = "$program $version" ] || fail "the packaged $program --version says \"$said\", not \"$program $version\""
done

if [ "$(id -u)" -ne 0 ]; then
    say "package check: SKIPPED installing, activating and removing the package: apt-get install needs root (CI runs this as root)"
    say "package check: built and lintian-clean"
    exit 0
fi
# The tray watcher the login start registers with (a test helper; scripts/test.sh built it).
swift build --product time-fake-desktop >&2
watcher="$(swift build --show-bin-path)/time-fake-desktop"
if dpkg-query -W -f='${Status}' time-tracker 2>/dev/null | grep -q "install ok installed"; then
    fail "time-tracker is already installed on this machine; this test installs and removes it, so remove it first (apt-get purge time-tracker)"
fi

install_package() {
    installed_by_us=yes
    apt install --no-install-recommends "$deb" > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get install $deb failed"; }
    dpkg-query -W -f='${Status}' time-tracker | grep -q "install ok installed" || fail "dpkg does not list time-tracker as installed"
}

# A private session bus configured with the standard service folders (so it finds the activation
# file in /usr/share/dbus-1/services), and a user whose home and data folder are fresh.
home="$tmp/home"
mkdir -p "$home"
data="$home/.local/share/time-tracker"
cat > "$tmp/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$tmp</listen>
  <standard_session_servicedirs/>
  <policy context="default"><allow send_destination="*"/><allow receive_sender="*"/><allow own="*"/></policy>
</busconfig>
CONF
as_user() {
    env -u XDG_DATA_HOME -u XDG_CONFIG_HOME -u XDG_RUNTIME_DIR -u TIME_TRACKER_DATA_DIR -u XDG_DATA_DIRS \
        HOME="$home" DBUS_SESSION_BUS_ADDRESS="${address:-}" "$@"
}
start_bus() {
    local started
    started="$(as_user dbus-daemon --config-file="$tmp/bus.conf" --fork --print-address=1 --print-pid=1)"
    address="$(sed -n 1p <<<"$started")"
    bus_pid="$(sed -n 2p <<<"$started")"
}
agent_pid() {
    as_user dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetConnectionUnixProcessID string:io.github.timetracker.Time1 | awk '{print $2}'
}
state() { as_user /usr/bin/timectl status --format json | sed -n 's/.*"state" *: *"\([a-z]*\)".*/\1/p'; }

say "-- apt-get install"
install_package
for file in "${files[@]}"; do [ -f "$file" ] || fail "$file was not installed"; done
# Every file dpkg installed, to check that removing the package takes each of them away.
dpkg -L time-tracker | while read -r path; do [ -d "$path" ] || printf '%s\n' "$path"; done > "$tmp/installed-files"
[ -s "$tmp/installed-files" ] || fail "dpkg -L time-tracker lists no files"
dpkg-query -W -f='${Conffiles}\n' time-tracker | awk 'NF {print $1}' > "$tmp/conffiles"
[ "$(/usr/bin/time-agent --version)" = "time-agent $version" ] || fail "time-agent --version: $(/usr/bin/time-agent --version)"
[ "$(/usr/bin/timectl --version)" = "timectl $version" ] || fail "timectl --version: $(/usr/bin/timectl --version)"

# The login start, as systemd does it in GNOME and Plasma sessions: the generator reads the XDG
# autostart folders ($HOME/.config/autostart first, then /etc/xdg/autostart) and writes a unit
# per entry; prints the unit made of an entry named time-agent.desktop, if any.
generator=/usr/lib/systemd/user-generators/systemd-xdg-autostart-generator
[ -x "$generator" ] || fail "$generator is missing (Debian package systemd)"
login_unit() {
    rm -rf "$tmp/generated"
    mkdir -p "$tmp/generated"
    as_user env -u XDG_CONFIG_DIRS SYSTEMD_LOG_LEVEL=debug "$generator" "$tmp/generated" "$tmp/generated" "$tmp/generated" \
        2>> "$tmp/generator.log" || fail "$generator failed: $(cat "$tmp/generator.log")"
    grep -l '^SourcePath=.*/time-agent\.desktop$' "$tmp/generated"/*.service 2>/dev/null || true
}
has_owner() {
    as_user dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner "string:$1" 2>/dev/null | grep -q true
}
pid_of() {
    as_user dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.GetConnectionUnixProcessID "string:$1" | awk '{print $2}'
}

say "-- login start: systemd-xdg-autostart-generator on the installed entry, its command on a private bus"
unit="$(login_unit)"
[ -n "$unit" ] || fail "the generator made no unit of /etc/xdg/autostart/time-agent.desktop: $(grep time-agent "$tmp/generator.log")"
[ "$(wc -l <<<"$unit")" -eq 1 ] || fail "more than one unit starts the agent at login: $unit"
grep -qx 'SourcePath=/etc/xdg/autostart/time-agent.desktop' "$unit" || fail "the unit is not made of the installed entry: $(cat "$unit")"
grep -qx 'PartOf=graphical-session.target' "$unit" || fail "the unit is not part of the graphical session: $(cat "$unit")"
[ -L "$tmp/generated/xdg-desktop-autostart.target.wants/$(basename "$unit")" ] || fail "xdg-desktop-autostart.target does not want $(basename "$unit")"
cp "$unit" "$output/login-unit.service"
command_line="$(sed -n 's/^ExecStart=//p' "$unit")"
while [[ "$command_line" == [-@:+!]* ]]; do command_line="${command_line:1}"; done   # systemd's prefixes
[[ "$command_line" != *[\"\'\\\$]* ]] || fail "the unit's command needs a shell's quoting, which this test does not do: $command_line"
read -ra login_command <<<"$command_line"
say "the login runs: ${login_command[*]}"
[ "${login_command[0]}" = /usr/bin/time-agent ] || fail "the login runs ${login_command[0]}, not /usr/bin/time-agent"
[ ! -e "$data" ] || fail "$data exists before the first start"
# A tray host first, as at a login: time-fake-desktop's StatusNotifierWatcher.
start_bus
as_user "$watcher" --status-notifier-watcher > "$tmp/watcher.log" 2>&1 &
watcher_pid=$!
for _ in $(seq 100); do has_owner org.kde.StatusNotifierWatcher && break; sleep 0.1; done
has_owner org.kde.StatusNotifierWatcher || fail "the watcher did not start: $(cat "$tmp/watcher.log")"
# It must end once the bus has started the agent (a command that became the agent would not).
as_user timeout 60 "${login_command[@]}" > "$tmp/login.log" 2>&1 || fail "the login's command failed or did not end: $(cat "$tmp/login.log")"
pid="$(agent_pid)"
[ -n "$pid" ] || fail "no agent owns io.github.timetracker.Time1 after the login's command: $(cat "$tmp/login.log")"
[ "$(readlink "/proc/$pid/exe")" = /usr/bin/time-agent ] || fail "the agent is $(readlink "/proc/$pid/exe"), not /usr/bin/time-agent"
! tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- --activate || fail "the login's command became the agent: the bus did not start it"
for _ in $(seq 100); do grep -q '^registered ' "$tmp/watcher.log" && break; sleep 0.1; done
registration="$(grep -m1 '^registered ' "$tmp/watcher.log")" || fail "the agent registered no tray item with the watcher"
[ "$(pid_of "$(awk '{print $3}' <<<"$registration")")" = "$pid" ] || fail "the tray item was registered by someone else: $registration"
say "the bus started the agent (process $pid); its tray item: $(awk '{print $2}' <<<"$registration")"
stop_bus || fail "the agent did not exit when its bus closed"
for _ in $(seq 50); do kill -0 "$watcher_pid" 2>/dev/null || break; sleep 0.1; done
kill "$watcher_pid" 2>/dev/null || true
watcher_pid=""

say "-- turning the login start off (README): for one user, then for everyone"
mkdir -p "$home/.config/autostart"
printf '[Desktop Entry]\nHidden=true\n' > "$home/.config/autostart/time-agent.desktop"
[ -z "$(login_unit)" ] || fail "Hidden=true in ~/.config/autostart/time-agent.desktop does not turn the login start off"
rm -r "$home/.config/autostart"
cp -p /etc/xdg/autostart/time-agent.desktop "$tmp/entry"
echo Hidden=true >> /etc/xdg/autostart/time-agent.desktop
[ -z "$(login_unit)" ] || fail "Hidden=true in /etc/xdg/autostart/time-agent.desktop does not turn the login start off"
cp -p "$tmp/entry" /etc/xdg/autostart/time-agent.desktop
[ -n "$(login_unit)" ] || fail "the restored entry no longer starts the agent"

say "-- D-Bus activation of /usr/bin/time-agent through the installed service file"
start_bus
[ "$(state)" = idle ] || fail "timectl status did not reach an activated, idle agent"
pid="$(agent_pid)"
[ "$(readlink "/proc/$pid/exe")" = /usr/bin/time-agent ] || fail "the bus started $(readlink "/proc/$pid/exe"), not /usr/bin/time-agent"
bus_version="$(as_user dbus-send --session --print-reply=literal --dest=io.github.timetracker.Time1 /io/github/timetracker/Time1 \
    org.freedesktop.DBus.Properties.Get string:io.github.timetracker.Time1 string:Version | awk '{print $NF}')"
[ "$bus_version" = "$version" ] || fail "the agent's Version property is $bus_version, not $version"

say "-- /usr/bin/timectl starts, pauses and stops a project"
as_user /usr/bin/timectl projects add Packaged > /dev/null || fail "timectl projects add failed"
as_user /usr/bin/timectl start Packaged > /dev/null || fail "timectl start failed"
[ "$(state)" = running ] || fail "not running after timectl start"
as_user /usr/bin/timectl status | grep -q Packaged || fail "timectl status does not name the project"
as_user /usr/bin/timectl pause > /dev/null || fail "timectl pause failed"
[ "$(state)" = paused ] || fail "not paused after timectl pause"
as_user /usr/bin/timectl stop > /dev/null || fail "timectl stop failed"
[ "$(state)" = idle ] || fail "not idle after timectl stop"
[ -f "$data/time.sqlite" ] || fail "the activated agent did not keep its data in $data"

if grep -rqs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/; then
    say "-- man -w: SKIPPED: this machine's dpkg configuration excludes /usr/share/man"
else
    say "-- man -w"
    [ "$(man -w timectl)" = /usr/share/man/man1/timectl.1.gz ] || fail "man -w timectl: $(man -w timectl 2>&1)"
    [ "$(man -w time-agent)" = /usr/share/man/man1/time-agent.1.gz ] || fail "man -w time-agent: $(man -w time-agent 2>&1)"
fi

stop_bus || fail "the agent did not exit when its bus closed"
fingerprint() { # every entry of the data folder: path, type, mode, size, mtime, and the bytes' SHA-256
    (cd "$data" && find . -printf '%p %y %m %s %T@\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
fingerprint > "$tmp/before"

say "-- apt-get remove"
apt remove time-tracker > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get remove failed"; }
# Configuration files stay until a purge (Debian's rule); the autostart entry then starts nothing.
while read -r file; do
    grep -qx "$file" "$tmp/conffiles" || [ ! -e "$file" ] || fail "apt-get remove left $file"
done < "$tmp/installed-files"
[ -z "$(login_unit)" ] || fail "after apt-get remove the autostart entry left behind still starts something at login"
fingerprint > "$tmp/after"
diff "$tmp/before" "$tmp/after" >&2 || fail "apt-get remove changed the user's data folder (differences above)"

say "-- reinstall: the data is there"
install_package
start_bus
as_user /usr/bin/timectl sessions --json > "$tmp/sessions.json" || fail "timectl sessions failed after reinstalling"
grep -q '"Packaged"' "$tmp/sessions.json" || fail "the session tracked before removal is missing after reinstalling"
stop_bus || fail "the agent did not exit when its bus closed"

say "-- apt-get purge: leaving the machine as it was"
apt purge time-tracker > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get purge failed"; }
installed_by_us=no
while read -r file; do [ ! -e "$file" ] || fail "apt-get purge left $file"; done < "$tmp/installed-files"
dpkg-query -W -f='${Status}' time-tracker 2>/dev/null | grep -q "installed" && fail "dpkg still lists time-tracker"
say "package check: built, lintian-clean with no override, timectl hardened, installed, started as at a login, activated over D-Bus, removed with the data kept, reinstalled, purged"
