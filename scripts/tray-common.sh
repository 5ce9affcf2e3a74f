# Shared by the tray checks on real hosts (scripts/tray-*.sh): their work folder and failure
# report, an installation of Time under a prefix as scripts/install.sh lays it out, and
# questions to the agent and the watcher on the session bus. Sourced after scripts/lib.sh and
# scripts/bus-waits.sh, not run.

# begin_host_check NAME LABEL: $work, a fresh folder removed at exit once the processes listed in
# $pids (ours, by id) are stopped; `fail MESSAGE` then reports LABEL, the logs in $work, and exits.
begin_host_check() {
    work="$(mktemp -d "/tmp/time-$1.XXXXXX")"
    pids=()
    host_label="$2"
    trap 'stop_pids "${pids[@]}"; rm -rf "$work"' EXIT
}
fail() {
    say "$host_label check failed: $*"
    local log
    for log in "$work"/*.log "$work"/*/*.log; do
        [ -f "$log" ] && { say "--- $log"; grep -v '^\s*$' "$log" | tail -n 15 >&2; }
    done
    exit 1
}

# private_home BIN: HOME, the XDG folders and a runtime folder inside $work, and Time installed
# under $prefix ($work/prefix).
private_home() {
    prefix="$work/prefix"
    install_prefix "$1" "$prefix"
    mkdir -p "$work/home" "$work/runtime"
    chmod 700 "$work/runtime"
    export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" \
        XDG_CACHE_HOME="$work/home/.cache" XDG_RUNTIME_DIR="$work/runtime" TZ=UTC LANG=C.UTF-8 NO_AT_BRIDGE=1
    unset WAYLAND_DISPLAY
}

# Copies the built time-agent and timectl to PREFIX/bin and Time's icons to PREFIX/share/icons,
# as an install under ~/.local has them: the agent then points hosts there (IconThemePath).
install_prefix() { # install_prefix BIN PREFIX
    mkdir -p "$2/bin" "$2/share/icons"
    cp "$1/time-agent" "$1/timectl" "$2/bin/"
    cp -r data/icons/hicolor "$2/share/icons/"
}

# The agent's timer state: idle, running or paused.
agent_state() {
    dbus-send --session --print-reply --dest=io.github.timetracker.Time1 /io/github/timetracker/Time1 \
        org.freedesktop.DBus.Properties.Get string:io.github.timetracker.Time1 string:State | sed -n 's/.*string "\(.*\)"/\1/p'
}
state_is() { [ "$(agent_state)" = "$1" ]; }

# Whether the watcher lists the item of the agent with process id $1.
is_registered() {
    dbus-send --session --print-reply --dest=org.kde.StatusNotifierWatcher /StatusNotifierWatcher \
        org.freedesktop.DBus.Properties.Get string:org.kde.StatusNotifierWatcher string:RegisteredStatusNotifierItems \
        | grep -q "StatusNotifierItem-$1-1"
}

# Number of distinct colors in a region of a picture: 1 means empty.
colors_in() { convert "$1" -crop "$2" +repage -format '%k' info:; }

# How much of its own bounding box the drawing in a region covers, in percent (pixels that
# differ from the region's corner pixel): our stopwatch covers about half of its box; an empty
# region gives 0, a box drawn for a missing image or glyph nearly 100.
ink_in() { # ink_in PICTURE GEOMETRY
    local background mask
    background="$(convert "$1" -crop "$2" +repage -format '%[pixel:p{0,0}]' info:)"
    mask="$(mktemp --suffix=.png)"
    convert "$1" -crop "$2" +repage -fuzz 12% -fill black -opaque "$background" -fill white +opaque black \
        -colorspace gray "$mask"
    if [ "$(convert "$mask" -format '%[fx:maxima]' info:)" = 0 ]; then echo 0
    else convert "$mask" -trim +repage -format '%[fx:round(100*mean)]' info:; fi
    rm -f "$mask"
}

# The share of a region's pixels near a colour, in percent. Our symbolic icons are drawn in the
# panel's text colour; the fallback pixmap is a badge in the project's colour.
color_share_in() { # color_share_in PICTURE GEOMETRY COLOR
    convert "$1" -crop "$2" +repage -fuzz 8% -fill black +opaque "$3" -fill white -opaque "$3" \
        -colorspace gray -format '%[fx:round(100*mean)]' info:
}

# The host checker (system python: python3-gi, python3-pyatspi).
host_check() { /usr/bin/python3 scripts/tray-host-check.py "$@"; }

# Stops the given processes (ours, by their ids), newest first: TERM, and KILL for one still
# there after 5 s (kded5 waits for its helpers), then waits for them.
stop_pids() {
    local index pid
    for ((index = $#; index >= 1; index--)); do kill "${!index}" 2>/dev/null || true; done
    for pid in "$@"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
}
