# A private desktop session for the window (scripts/test-window.sh, scripts/bench-window.sh):
# HOME, XDG folders and GSettings of its own, Xvfb, a session bus of our own configuration and an
# accessibility bus. Sourced after scripts/lib.sh and scripts/bus-waits.sh, not run.

# Every process we started (by id) and what it started in turn (the accessibility bus and its
# registry, a service a bus started): TERM, and KILL for one still there after 5 s.
tree_of() { local child; echo "$1"; for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do tree_of "$child"; done; }
stop_tree() {
    local all=() pid index
    for pid in "$@"; do [ -n "$pid" ] && all+=($(tree_of "$pid")); done
    # Children before their parents, so that each is reaped by its own parent.
    for ((index = ${#all[@]} - 1; index >= 0; index--)); do
        pid="${all[$index]}"
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}

# window_session WORK: the session in WORK (a fresh folder); the processes go to the array $pids.
window_session() {
    local work="$1"
    mkdir -p "$work/home" "$work/runtime" "$work/services"
    chmod 700 "$work/runtime"
    # GSettings in memory: nothing of the machine's dconf is read, nothing is written.
    export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" \
        XDG_CACHE_HOME="$work/home/.cache" XDG_STATE_HOME="$work/home/.local/state" XDG_RUNTIME_DIR="$work/runtime" \
        XDG_DATA_DIRS="/usr/local/share:/usr/share" TZ=Europe/Berlin LANG=C.UTF-8 GSETTINGS_BACKEND=memory
    unset NO_AT_BRIDGE WAYLAND_DISPLAY AT_SPI_BUS_ADDRESS DBUS_SYSTEM_BUS_ADDRESS

    # The display; -noreset keeps the root window's AT_SPI_BUS when its last client leaves.
    Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset 3>"$work/display" >"$work/xvfb.log" 2>&1 &
    pids+=($!)
    wait_until 10 test -s "$work/display" || { say "Xvfb did not start"; return 1; }
    export DISPLAY=":$(head -n1 "$work/display")"

    # The session bus: our own configuration, whose only service folder is $work/services (empty
    # unless a caller puts a service there), so that a call to a name nobody owns (the agent while
    # it is killed) cannot start an installed time-agent or anything else of the machine.
    cat >"$work/session.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:dir=$work</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$work/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF
    dbus-daemon --config-file="$work/session.conf" --nofork --print-address=3 3>"$work/bus" >"$work/bus.log" 2>&1 &
    pids+=($!)
    wait_until 10 test -s "$work/bus" || { say "the private session bus did not start"; return 1; }
    export DBUS_SESSION_BUS_ADDRESS="$(head -n1 "$work/bus")"

    # The accessibility bus, switched on (as scripts/tray-plasma.sh does); its address also on the
    # root window, where AT-SPI clients look first.
    /usr/libexec/at-spi-bus-launcher --launch-immediately >"$work/at-spi.log" 2>&1 &
    pids+=($!)
    wait_until 10 has_owner org.a11y.Bus || { say "at-spi-bus-launcher did not start"; return 1; }
    local address
    address="$(gdbus call --session --dest org.a11y.Bus --object-path /org/a11y/bus --method org.a11y.Bus.GetAddress | sed "s/^('\(.*\)',)$/\1/")"
    xprop -root -f AT_SPI_BUS 8s -set AT_SPI_BUS "$address"
    gdbus call --session --dest org.a11y.Bus --object-path /org/a11y/bus --method org.freedesktop.DBus.Properties.Set \
        org.a11y.Status IsEnabled '<true>' >/dev/null
}

# How the window runs here: X11 under Xvfb, cairo (no GL), AT-SPI on.
WINDOW_ENV=(GDK_BACKEND=x11 GSK_RENDERER=cairo GTK_A11Y=atspi)
