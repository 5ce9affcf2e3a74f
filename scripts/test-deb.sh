#!/usr/bin/env bash
# Builds the two Debian packages once (time-tracker-agent: the agent, timectl and their files;
# time-tracker: the window), checks them with lintian (any error or warning fails, and neither
# carries an override), checks that timectl is a PIE with RELRO and BIND_NOW that loads glibc
# alone and that every binary is a PIE with RELRO and BIND_NOW, and validates the window's
# desktop entry and AppStream metainfo;
# then, as root: upgrades a stand-in of the old single time-tracker package (0.4.0, which held the
# agent's files) to the two packages; installs time-tracker-agent alone with apt-get (no GTK may
# come with it), starts the agent the way a login does (systemd's own
# systemd-xdg-autostart-generator turns the installed autostart entry into a unit, whose command
# runs on a private session bus with a tray watcher: the bus starts the installed agent, which
# registers its item), checks the two ways to turn that off, lets the bus start the agent on a
# first call, drives it with /usr/bin/timectl; installs time-tracker (the window: its entry is
# valid and visible, its libraries resolve, and org.freedesktop.Application.Activate has the bus
# start /usr/bin/time-tracker on an Xvfb display); removes the window and then the agent (the
# user's data folder must stay byte for byte as it was, and the autostart entry left as a
# configuration file starts nothing), reinstalls both (the data is there), and finally purges
# them so the machine is left as it was.
#   scripts/test-deb.sh     (run by scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_swift
# shellcheck disable=SC2086
ensure_packages $BUILD_PACKAGES $DEB_PACKAGES dbus-daemon dbus-bin libglib2.0-bin systemd xvfb x11-utils

output="${TIME_TEST_OUTPUT:-$PWD/.build/test-output}"
mkdir -p "$output"
tmp="$(mktemp -d /tmp/time-deb.XXXXXX)"
bus_pid=""
watcher_pid=""
window_pid=""
xvfb_pid=""
installed_by_us=no
packages=(time-tracker-agent time-tracker)
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
    [ -z "$window_pid" ] || kill "$window_pid" 2>/dev/null || true
    stop_bus || true
    [ -z "$watcher_pid" ] || kill "$watcher_pid" 2>/dev/null || true
    [ -z "$xvfb_pid" ] || kill "$xvfb_pid" 2>/dev/null || true
    if [ "$installed_by_us" = yes ]; then apt purge "${packages[@]}" > "$tmp/cleanup.log" 2>&1 || cat "$tmp/cleanup.log" >&2; fi
    rm -rf "$tmp"
}
trap cleanup EXIT

say "== Debian packages: build, lintian, hardening, the upgrade from one package, the agent alone (no GTK), login start, D-Bus activation, the window, remove, reinstall, purge"
version="$(scripts/version.sh --check)"

say "-- building the packages"
built="$(scripts/package-deb.sh)"
agent_deb="$PWD/$(sed -n 1p <<<"$built")"
app_deb="$PWD/$(sed -n 2p <<<"$built")"
[ "$(dpkg-deb -f "$agent_deb" Package)" = time-tracker-agent ] || fail "the first package is not time-tracker-agent: $agent_deb"
[ "$(dpkg-deb -f "$app_deb" Package)" = time-tracker ] || fail "the second package is not time-tracker: $app_deb"
for deb in "$agent_deb" "$app_deb"; do
    [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "$(basename "$deb")'s version is not $version"
done
depends="$(dpkg-deb -f "$agent_deb" Depends)"
grep -q 'libdbus-1-3' <<<"$depends" || fail "time-tracker-agent's Depends lacks libdbus-1-3 (dpkg-shlibdeps did not run?): $depends"
! grep -Eq 'libgtk|libadwaita' <<<"$depends" || fail "time-tracker-agent depends on GTK: $depends"
# The agent loads librsvg with dlopen (invisible to dpkg-shlibdeps): the package must name it.
dpkg-deb -f "$agent_deb" Recommends | grep -q 'librsvg2-2' || fail "Recommends lacks librsvg2-2, which the agent loads for the week's chart"
# Vanilla GNOME shows no tray without the extension: the desktop's package recommends it; the agent's
# must not (apt would install GNOME Shell, and GTK, for a bare window manager).
dpkg-deb -f "$app_deb" Recommends | grep -q 'gnome-shell-extension-appindicator' || fail "time-tracker's Recommends lacks gnome-shell-extension-appindicator"
! dpkg-deb -f "$agent_deb" Recommends | grep -q 'gnome-shell' || fail "time-tracker-agent recommends GNOME Shell: $(dpkg-deb -f "$agent_deb" Recommends)"
# Up to 0.4.0 the package time-tracker held the agent's files: the agent's package takes them over.
for field in Breaks Replaces; do
    [ "$(dpkg-deb -f "$agent_deb" "$field")" = "time-tracker (<< $version)" ] \
        || fail "time-tracker-agent's $field is \"$(dpkg-deb -f "$agent_deb" "$field")\", not \"time-tracker (<< $version)\""
done
app_depends="$(dpkg-deb -f "$app_deb" Depends)"
grep -q "time-tracker-agent (= $version)" <<<"$app_depends" || fail "time-tracker does not depend on time-tracker-agent (= $version): $app_depends"
grep -q 'libgtk-4-1' <<<"$app_depends" && grep -q 'libadwaita-1-0' <<<"$app_depends" \
    || fail "time-tracker's Depends lacks libgtk-4-1 or libadwaita-1-0 (dpkg-shlibdeps did not run?): $app_depends"
say "packages: $(basename "$agent_deb"), $(du -k "$agent_deb" | cut -f1) KiB; Depends: $depends"
say "          $(basename "$app_deb"), $(du -k "$app_deb" | cut -f1) KiB; Depends: $app_depends"

say "-- lintian"
set +e
lintian --fail-on error,warning --display-info "$agent_deb" "$app_deb" > "$output/lintian.txt" 2>&1
lintian_status=$?
set -e
grep -v 'running with root privileges is not recommended' "$output/lintian.txt" >&2 || true
[ "$lintian_status" -eq 0 ] || fail "lintian reported errors or warnings (above; also in $output/lintian.txt)"

agent_files=(
    /etc/xdg/autostart/time-agent.desktop
    /usr/bin/time-agent
    /usr/bin/timectl
    /usr/share/dbus-1/services/io.github.timetracker.Time1.service
    /usr/share/dbus-1/interfaces/io.github.timetracker.Time1.xml
    /usr/lib/systemd/user/time-agent.service
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
    /usr/share/doc/time-tracker-agent/copyright
    /usr/share/doc/time-tracker-agent/changelog.gz
)
app_files=(
    /usr/bin/time-tracker
    /usr/share/applications/io.github.timetracker.Time.desktop
    /usr/share/dbus-1/services/io.github.timetracker.Time.service
    /usr/share/metainfo/io.github.timetracker.Time.metainfo.xml
    /usr/share/man/man1/time-tracker.1.gz
    /usr/share/doc/time-tracker/copyright
    /usr/share/doc/time-tracker/changelog.gz
)
listing() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\.||'; }
agent_listing="$(listing "$agent_deb")"
app_listing="$(listing "$app_deb")"
for file in "${agent_files[@]}"; do
    grep -qx "$file" <<<"$agent_listing" || fail "time-tracker-agent does not contain $file"
done
for file in "${app_files[@]}"; do
    grep -qx "$file" <<<"$app_listing" || fail "time-tracker does not contain $file"
done
# The agent's package is the GTK-free one: the window and its files are in time-tracker only.
! grep -Eq '^/usr/bin/time-tracker$|^/usr/share/(applications|metainfo)/' <<<"$agent_listing" \
    || fail "time-tracker-agent contains the window's files: $(grep -E '^/usr/bin/time-tracker$|^/usr/share/(applications|metainfo)/' <<<"$agent_listing" | tr '\n' ' ')"
both="$(comm -12 <(sort <<<"$agent_listing") <(sort <<<"$app_listing"))"
[ -z "$both" ] || fail "both packages contain: $both"

! grep -q '^/usr/share/lintian/overrides' <<<"$agent_listing$app_listing" || fail "a package carries a lintian override"
dpkg-deb --ctrl-tarfile "$agent_deb" | tar -xOf - ./conffiles 2>/dev/null | grep -qx /etc/xdg/autostart/time-agent.desktop \
    || fail "/etc/xdg/autostart/time-agent.desktop is not a configuration file of time-tracker-agent"

# One version everywhere: the package, and --version of the packaged programs (the D-Bus
# Version property is checked below, once the installed agent runs).
dpkg-deb -x "$agent_deb" "$tmp/staged"
dpkg-deb -x "$app_deb" "$tmp/staged"

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
# Every binary of the packages: position-independent, RELRO and BIND_NOW (debian/rules' flags).
for program in time-agent time-tracker; do
    elf="$(readelf -h -l -d -W "$tmp/staged/usr/bin/$program")"
    grep -Eq '^ *Type: *DYN ' <<<"$elf" || fail "$program is not position-independent"
    grep -q 'GNU_RELRO' <<<"$elf" || fail "$program has no RELRO segment"
    grep -Eq '\(FLAGS_1\) .*\bNOW\b|\(BIND_NOW\)' <<<"$elf" || fail "$program is not linked with BIND_NOW"
done
# The window's desktop entry and metainfo, as installed.
say "-- the window's desktop entry (desktop-file-validate) and AppStream metainfo (appstreamcli validate)"
entry="$tmp/staged/usr/share/applications/io.github.timetracker.Time.desktop"
desktop-file-validate "$entry" >&2 || fail "desktop-file-validate refuses the packaged desktop entry (above)"
grep -qx 'Exec=/usr/bin/time-tracker' "$entry" || fail "the desktop entry does not run /usr/bin/time-tracker: $(grep '^Exec=' "$entry")"
grep -qx 'DBusActivatable=true' "$entry" || fail "the desktop entry is not DBusActivatable"
! grep -Eq '^(NoDisplay|Hidden)=true' "$entry" || fail "the desktop entry is hidden from the application menus"
grep -qx 'X-GNOME-UsesNotifications=true' "$entry" || fail "the desktop entry lost X-GNOME-UsesNotifications (the agent's notifications name it)"
grep -qx 'Exec=/usr/bin/time-tracker --gapplication-service' "$tmp/staged/usr/share/dbus-1/services/io.github.timetracker.Time.service" \
    || fail "the window's D-Bus activation file does not start /usr/bin/time-tracker --gapplication-service"
metainfo="$tmp/staged/usr/share/metainfo/io.github.timetracker.Time.metainfo.xml"
appstreamcli validate --no-net "$metainfo" >&2 || fail "appstreamcli refuses the packaged metainfo (above)"
# The metainfo with the desktop entry it names as launchable, as a software centre reads them.
appstreamcli validate-tree --no-net "$tmp/staged" >&2 || fail "appstreamcli validate-tree refuses the packages' files (above)"
newest_release="$(sed -n 's/.*<release version="\([^"]*\)".*/\1/p' "$metainfo" | head -1)"
[ "$newest_release" = "$version" ] \
    || fail "the metainfo's newest release is ${newest_release:-missing}, the code says $version: add a <release version=\"$version\" date=\"…\"> to data/io.github.timetracker.Time.metainfo.xml"
for program in time-agent timectl time-tracker; do
    said="$("$tmp/staged/usr/bin/$program" --version)"
    [ "$said" = "$program $version" ] || fail "the packaged $program --version says \"$said\", not \"$program $version\""
done

if [ "$(id -u)" -ne 0 ]; then
    say "package check: SKIPPED installing, activating and removing the package: apt-get install needs root (CI runs this as root)"
    say "package check: built and lintian-clean, entry and metainfo valid"
    exit 0
fi
# The tray watcher the login start registers with (a test helper; scripts/test.sh built it).
swift build --product time-fake-desktop >&2
watcher="$(swift build --show-bin-path)/time-fake-desktop"
is_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for package in "${packages[@]}"; do
    ! is_installed "$package" \
        || fail "$package is already installed on this machine; this test installs and removes it, so remove it first (apt-get purge ${packages[*]})"
done

install_packages() { # install_packages DEB... : the packages in those files, with what they need
    installed_by_us=yes
    apt install --no-install-recommends "$@" > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get install $* failed"; }
    local deb
    for deb in "$@"; do
        is_installed "$(dpkg-deb -f "$deb" Package)" || fail "dpkg does not list $(dpkg-deb -f "$deb" Package) as installed"
    done
}
installed_files() { dpkg -L "$1" | while read -r path; do [ -d "$path" ] || printf '%s\n' "$path"; done; }

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

say "-- upgrade from the single package: a stand-in of time-tracker 0.4.0 with the agent's files, then apt-get install of both"
# 0.4.0 was the last version in one package; the split needs a newer version to be an upgrade.
old_version=0.4.0
if ! dpkg --compare-versions "$version" gt "$old_version"; then
    say "WARNING: the version is still $version: users with time-tracker $old_version (one package) get no upgrade to the"
    say "WARNING: two packages until TimeVersion is raised above $old_version; the upgrade is tested from ${old_version}~single"
    old_version="${old_version}~single"
fi
old="$tmp/old/time-tracker"
for file in /usr/bin/timectl /usr/bin/time-agent /usr/share/dbus-1/services/io.github.timetracker.Time1.service \
            /etc/xdg/autostart/time-agent.desktop /usr/share/applications/io.github.timetracker.Time.desktop; do
    mkdir -p "$old$(dirname "$file")"
    cp -p "$tmp/staged$file" "$old$file"
done
mkdir -p "$old/DEBIAN"
printf '/etc/xdg/autostart/time-agent.desktop\n' > "$old/DEBIAN/conffiles"
cat > "$old/DEBIAN/control" <<CONTROL
Package: time-tracker
Version: $old_version
Architecture: amd64
Maintainer: Time maintainers <maintainers@users.noreply.a-seed-40d93201.example>
Description: stand-in for the single package of Time $old_version (scripts/test-deb.sh)
CONTROL
dpkg-deb --root-owner-group -b "$old" "$tmp/time-tracker-old.deb" > /dev/null
installed_by_us=yes
dpkg -i "$tmp/time-tracker-old.deb" > "$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log" >&2; fail "the stand-in old package did not install"; }
install_packages "$agent_deb" "$app_deb"
for package in "${packages[@]}"; do
    [ "$(dpkg-query -W -f='${Version}' "$package")" = "$version" ] || fail "$package is not at $version after the upgrade"
done
for file in /usr/bin/timectl /usr/bin/time-agent /etc/xdg/autostart/time-agent.desktop; do
    owner="$(dpkg -S "$file" | cut -d: -f1)"
    [ "$owner" = time-tracker-agent ] || fail "after the upgrade $file belongs to $owner, not time-tracker-agent"
done
dpkg-query -W -f='${Conffiles}\n' time-tracker-agent | grep -q '^ /etc/xdg/autostart/time-agent.desktop [0-9a-f]*$' \
    || fail "time-tracker-agent did not take over the configuration file /etc/xdg/autostart/time-agent.desktop: $(dpkg-query -W -f='${Conffiles}' time-tracker-agent)"
# dpkg keeps the old package's record of it, marked obsolete; purging time-tracker must leave it.
! dpkg-query -W -f='${Conffiles}\n' time-tracker | grep 'time-agent.desktop' | grep -vq ' obsolete$' \
    || fail "time-tracker still holds /etc/xdg/autostart/time-agent.desktop as its configuration file after the upgrade"
# Purging the window must leave the agent's files (the old package's among them) alone.
apt purge time-tracker > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get purge time-tracker failed after the upgrade"; }
for file in "${agent_files[@]}"; do [ -f "$file" ] || fail "purging time-tracker after the upgrade removed $file"; done
apt purge time-tracker-agent > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get purge time-tracker-agent failed after the upgrade"; }
installed_by_us=no
for file in "${agent_files[@]}" "${app_files[@]}"; do [ ! -e "$file" ] || fail "purging both packages after the upgrade left $file"; done

say "-- apt-get install time-tracker-agent alone: no GTK"
gtk_installed() { dpkg-query -W -f='${binary:Package} ${Status}\n' 'libgtk-4*' 'libadwaita-1*' 2>/dev/null | grep 'install ok installed' | sort; }
gtk_installed > "$tmp/gtk-before"
install_packages "$agent_deb"
! is_installed time-tracker || fail "installing time-tracker-agent installed time-tracker"
gtk_installed > "$tmp/gtk-after"
new_gtk="$(comm -13 "$tmp/gtk-before" "$tmp/gtk-after")"
[ -z "$new_gtk" ] || fail "installing time-tracker-agent pulled GTK in: $new_gtk"
# GTK may be on this machine already (the window's build needs it): the dependencies must not reach
# it, nor those of what the agent recommends (the first of each choice, which apt would install).
recommended="$(dpkg-deb -f "$agent_deb" Recommends | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*)//' -e 's/ //g' | grep . || true)"
# shellcheck disable=SC2086
closure="$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances \
    time-tracker-agent $recommended 2>/dev/null | grep -v '^ ' | sort -u)"
[ -n "$closure" ] || fail "apt-cache depends --recurse time-tracker-agent said nothing"
! grep -Eq '^(libgtk-4|libgtk-3|libgtk2|libadwaita|gnome-shell)' <<<"$closure" \
    || fail "time-tracker-agent's dependencies reach GTK: $(grep -E '^(libgtk|libadwaita|gnome-shell)' <<<"$closure" | tr '\n' ' ')"
say "time-tracker-agent's $(wc -l <<<"$closure") dependencies and recommendations ($(tr '\n' ' ' <<<"$recommended")), recursively, hold no GTK; dpkg -l shows no new libgtk-4 or libadwaita package"
for file in "${agent_files[@]}"; do [ -f "$file" ] || fail "$file was not installed"; done
for file in "${app_files[@]}"; do [ ! -e "$file" ] || fail "time-tracker-agent alone installed $file"; done
# Every file dpkg installed, to check that removing the packages takes each of them away.
installed_files time-tracker-agent > "$tmp/agent-installed-files"
[ -s "$tmp/agent-installed-files" ] || fail "dpkg -L time-tracker-agent lists no files"
dpkg-query -W -f='${Conffiles}\n' time-tracker-agent | awk 'NF {print $1}' > "$tmp/conffiles"
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

say "-- apt-get install time-tracker: the window"
install_packages "$app_deb"
for file in "${app_files[@]}"; do [ -f "$file" ] || fail "$file was not installed"; done
installed_files time-tracker > "$tmp/app-installed-files"
entry=/usr/share/applications/io.github.timetracker.Time.desktop
desktop-file-validate "$entry" >&2 || fail "desktop-file-validate refuses $entry (above)"
! grep -Eq '^(NoDisplay|Hidden)=true' "$entry" || fail "$entry is hidden from the application menus"
grep -qx 'DBusActivatable=true' "$entry" || fail "$entry is not DBusActivatable"
grep -qx 'Exec=/usr/bin/time-tracker' "$entry" || fail "$entry does not run /usr/bin/time-tracker"
app_service=/usr/share/dbus-1/services/io.github.timetracker.Time.service
grep -qx 'Name=io.github.timetracker.Time' "$app_service" || fail "$app_service does not name io.github.timetracker.Time"
grep -qx 'Exec=/usr/bin/time-tracker --gapplication-service' "$app_service" || fail "$app_service does not start /usr/bin/time-tracker: $(grep '^Exec=' "$app_service")"
ldd /usr/bin/time-tracker > "$tmp/ldd.txt" 2>&1 || fail "ldd /usr/bin/time-tracker failed: $(cat "$tmp/ldd.txt")"
! grep -q 'not found' "$tmp/ldd.txt" || fail "the window's libraries do not resolve: $(grep 'not found' "$tmp/ldd.txt")"
grep -q 'libadwaita-1\.so' "$tmp/ldd.txt" || fail "the window does not load libadwaita: $(cat "$tmp/ldd.txt")"
appstreamcli validate --no-net /usr/share/metainfo/io.github.timetracker.Time.metainfo.xml >&2 || fail "appstreamcli refuses the installed metainfo (above)"
if ! grep -rqs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg.d/; then
    [ "$(man -w time-tracker)" = /usr/share/man/man1/time-tracker.1.gz ] || fail "man -w time-tracker: $(man -w time-tracker 2>&1)"
fi

say "-- the window through D-Bus activation: org.freedesktop.Application.Activate on an Xvfb display"
display=""
for n in $(seq 91 120); do [ -e "/tmp/.X11-unix/X$n" ] || [ -e "/tmp/.X$n-lock" ] || { display=":$n"; break; }; done
[ -n "$display" ] || fail "no free X display number for Xvfb"
Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp > "$tmp/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 100); do [ -e "/tmp/.X11-unix/X${display#:}" ] && break; sleep 0.1; done
[ -e "/tmp/.X11-unix/X${display#:}" ] || fail "Xvfb did not start: $(cat "$tmp/xvfb.log")"
start_bus
# The bus passes its own environment to what it starts: the display goes in through the bus.
as_user dbus-update-activation-environment DISPLAY="$display" GDK_BACKEND=x11 GSK_RENDERER=cairo GTK_A11Y=none \
    || fail "dbus-update-activation-environment failed"
as_user timeout 30 gdbus call --session --dest io.github.timetracker.Time --object-path /io/github/timetracker/Time \
    --method org.freedesktop.Application.Activate '@a{sv} {}' > "$tmp/activate.log" 2>&1 \
    || fail "org.freedesktop.Application.Activate on io.github.timetracker.Time failed: $(cat "$tmp/activate.log")"
window_pid="$(pid_of io.github.timetracker.Time)"
[ -n "$window_pid" ] || fail "nobody owns io.github.timetracker.Time after Activate"
[ "$(readlink "/proc/$window_pid/exe")" = /usr/bin/time-tracker ] || fail "the bus started $(readlink "/proc/$window_pid/exe"), not /usr/bin/time-tracker"
tr '\0' ' ' < "/proc/$window_pid/cmdline" | grep -q -- '--gapplication-service' || fail "the window was not started by its D-Bus activation file"
say "the bus started the window (process $window_pid): $(tr '\0' ' ' < "/proc/$window_pid/cmdline")"
# Activate presents it: a top-level window called Time appears on the display.
for _ in $(seq 100); do DISPLAY="$display" xwininfo -root -tree 2>/dev/null | grep -q '"Time"' && break; sleep 0.1; done
DISPLAY="$display" xwininfo -root -tree 2>/dev/null | grep -q '"Time"' || fail "Activate started the window but showed no window called Time"
kill "$window_pid"
for _ in $(seq 50); do kill -0 "$window_pid" 2>/dev/null || break; sleep 0.1; done
window_pid=""
stop_bus || fail "the agent did not exit when its bus closed"
kill "$xvfb_pid" 2>/dev/null || true
xvfb_pid=""

fingerprint() { # every entry of the data folder: path, type, mode, size, mtime, and the bytes' SHA-256
    (cd "$data" && find . -printf '%p %y %m %s %T@\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
fingerprint > "$tmp/before"

say "-- apt-get remove time-tracker: the agent stays"
apt remove time-tracker > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get remove time-tracker failed"; }
while read -r file; do [ ! -e "$file" ] || fail "apt-get remove time-tracker left $file"; done < "$tmp/app-installed-files"
is_installed time-tracker-agent || fail "removing time-tracker removed time-tracker-agent"
for file in "${agent_files[@]}"; do [ -f "$file" ] || fail "removing time-tracker removed $file"; done

say "-- apt-get remove time-tracker-agent"
apt remove time-tracker-agent > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get remove time-tracker-agent failed"; }
# Configuration files stay until a purge (Debian's rule); the autostart entry then starts nothing.
while read -r file; do
    grep -qx "$file" "$tmp/conffiles" || [ ! -e "$file" ] || fail "apt-get remove left $file"
done < "$tmp/agent-installed-files"
[ -z "$(login_unit)" ] || fail "after apt-get remove the autostart entry left behind still starts something at login"
fingerprint > "$tmp/after"
diff "$tmp/before" "$tmp/after" >&2 || fail "apt-get remove changed the user's data folder (differences above)"

say "-- reinstall both: the data is there"
install_packages "$agent_deb" "$app_deb"
start_bus
as_user /usr/bin/timectl sessions --json > "$tmp/sessions.json" || fail "timectl sessions failed after reinstalling"
grep -q '"Packaged"' "$tmp/sessions.json" || fail "the session tracked before removal is missing after reinstalling"
stop_bus || fail "the agent did not exit when its bus closed"

say "-- apt-get purge: leaving the machine as it was"
apt purge "${packages[@]}" > "$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get purge failed"; }
installed_by_us=no
while read -r file; do [ ! -e "$file" ] || fail "apt-get purge left $file"; done < <(cat "$tmp/agent-installed-files" "$tmp/app-installed-files")
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "installed" && fail "dpkg still lists $package"
done
say "package check: built both, lintian-clean with no override, binaries hardened, upgraded from the single package, the agent installed alone without GTK, started as at a login, activated over D-Bus; the window installed, valid, visible and started by D-Bus activation; removed with the data kept, reinstalled, purged"
