# Shared by scripts/test-tray.sh and the session it runs as a throwaway user: waiting for a
# condition and for a name on the session bus. Sourced, not run.

# Polls a command until it succeeds (at most $1 seconds).
wait_until() {
    local seconds="$1"; shift
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.2
    done
}

# Whether a name has an owner on the session bus.
has_owner() {
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner "string:$1" | grep -q "boolean true"
}
