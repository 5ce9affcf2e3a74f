# Shared by the scripts: finding Swift and installing the Debian packages a step needs.
# Sourced, not run.

# Debian packages for building, and the extra ones the tests drive for real.
# The agent and timectl need AGENT_BUILD_PACKAGES; the window (time-tracker) also WINDOW_BUILD_PACKAGES
# (scripts/install.sh installs the agent alone where they are missing).
AGENT_BUILD_PACKAGES="pkg-config libdbus-1-dev libglib2.0-dev libnotify-dev libsqlite3-dev"
WINDOW_BUILD_PACKAGES="libgtk-4-dev libadwaita-1-dev"
BUILD_PACKAGES="$AGENT_BUILD_PACKAGES $WINDOW_BUILD_PACKAGES"
# Building the Debian packages and checking them (scripts/package-deb.sh, scripts/test-deb.sh):
# appstreamcli (appstream) validates the metainfo, desktop-file-validate (desktop-file-utils) the entry.
DEB_PACKAGES="debhelper dpkg-dev lintian man-db devscripts binutils appstream desktop-file-utils"
TEST_PACKAGES="dbus-daemon dbus-bin libglib2.0-bin systemd binutils sqlite3 dunst xvfb x11-utils imagemagick fonts-dejavu-core gcc libc6-dev procps zsh fish librsvg2-2 librsvg2-bin"
# The report tests read the timesheet with Python's csv module and convert it with LibreOffice headless;
# python3-gi: a real GApplication stands in for the window in the Open Time tests.
TEST_PACKAGES="$TEST_PACKAGES python3 libreoffice-calc-nogui python3-gi"
# kreadconfig5 and kwriteconfig5: DesktopShortcutsTests write and read KDE's shortcut files with
# them (without them those tests skip; GNOME's run under the real GNOME Shell in test-shortcuts.sh).
TEST_PACKAGES="$TEST_PACKAGES libkf5config-bin"
# The peers the import tests drive (scripts/test-exchange.sh); PyPI's td-watson and icalendar go in a venv.
EXCHANGE_PACKAGES="timewarrior hamster-time-tracker python3-venv sqlite3 dbus-daemon"

# dbus-broker as the session bus (scripts/test-dbus-broker.sh): the broker, systemd-socket-activate
# (systemd) and unshare (util-linux) to run it without systemd, and what those tests run beside
# the bus (busctl, gdbus, dbus-send, readelf, the zsh and fish completions).
BROKER_PACKAGES="dbus-broker systemd util-linux dbus-daemon dbus-bin libglib2.0-bin binutils zsh fish procps"

# The real panels the tray is tested on (scripts/test-tray.sh): xfce4-panel, waybar under sway,
# GNOME Shell with the AppIndicator extension (read through org.gnome.Shell.Eval from the
# system's python3-gi), Plasma's system tray with kded5's watcher (read over AT-SPI).
TRAY_PACKAGES="dbus-daemon dbus-bin xvfb x11-utils imagemagick xdotool xfce4-panel adwaita-icon-theme fonts-dejavu-core sway waybar grim passwd util-linux procps
    gnome-shell gnome-shell-extension-appindicator dconf-gsettings-backend libglib2.0-bin python3-gi
    plasma-workspace kded5 at-spi2-core python3-pyatspi gir1.2-atspi-2.0"
# The window driven over AT-SPI (scripts/test-window.sh): Xvfb, an accessibility bus and the system's
# python3-gi with Atspi's typelib to drive it, ImageMagick and xdotool for its pictures; GTK 4 and
# libadwaita to run it; xfconf for the keyboard shortcut written as on Xfce. scripts/bench-window.sh adds
# Hamster (hamster-time-tracker) beside it.
WINDOW_PACKAGES="dbus-daemon dbus-bin xvfb x11-utils imagemagick xdotool at-spi2-core gir1.2-atspi-2.0
    python3-gi libglib2.0-bin sqlite3 procps libgtk-4-1 libadwaita-1-0 adwaita-icon-theme fonts-dejavu-core fonts-cantarell xfconf"
# Time's keyboard shortcut on real desktops (scripts/test-shortcuts.sh): headless GNOME Shell with
# gsd-media-keys and PipeWire (Mutter's remote desktop needs it), Xfce's xfsettingsd and xfconf,
# KDE's kglobalaccel5 and its config tools, Xvfb and xdotool for the X11 key presses.
SHORTCUT_PACKAGES="dbus-daemon dbus-bin libglib2.0-bin python3-gi gnome-shell gnome-settings-daemon pipewire
    xfce4-settings xfconf libkf5globalaccel-bin libkf5config-bin xvfb xdotool x11-utils"
# Sync across devices (scripts/test-sync.sh): two real Syncthing instances.
SYNC_PACKAGES="syncthing dbus-daemon python3"

say() { printf '%s\n' "$*" >&2; }

# Installs whichever of the named Debian packages are missing: with apt-get as root, with sudo
# otherwise, and when neither is possible prints the exact command and stops.
ensure_packages() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local command="apt-get install -y --no-install-recommends ${missing[*]}"
    if [ "$(id -u)" -eq 0 ]; then
        say "Installing ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $command >&2
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        say "Installing ${missing[*]} (sudo)"
        sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        sudo DEBIAN_FRONTEND=noninteractive $command >&2
    else
        say "These Debian packages are needed: ${missing[*]}"
        say "Install them, then run this script again:"
        say "    sudo apt-get update && sudo $command"
        exit 1
    fi
}

# Puts the Swift toolchain on PATH (it lives in /opt/swift on our machines) or explains.
ensure_swift() {
    command -v swift >/dev/null 2>&1 && return 0
    if [ -x /opt/swift/usr/bin/swift ]; then
        export PATH="/opt/swift/usr/bin:$PATH"
        return 0
    fi
    say "Swift 6 is needed and was not found on PATH or in /opt/swift."
    say "Install a Swift 6 toolchain for Linux from swift.org and put its usr/bin on PATH."
    exit 1
}
