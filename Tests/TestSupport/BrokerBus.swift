import DBusKit
import Foundation

/// dbus-broker as a private session bus, without systemd. dbus-broker-launch wants what a systemd
/// user session gives it: the journal's socket for its log (it refuses to start without one), a
/// listening socket passed by socket activation, and a user bus to subscribe to systemd's
/// signals on (it connects to its own bus for that, as `sd_bus_open_user` finds it through
/// `XDG_RUNTIME_DIR`). So, in a mount namespace of its own (`unshare`), a tmpfs on /run/systemd
/// holds a journal socket whose datagrams go to `journal.log`, and `systemd-socket-activate`
/// hands the bus socket to the launcher. The configuration names no service folder: dbus-broker
/// activates services only through systemd.
enum BrokerBus {
    /// The shell that sets the namespace up, run by `unshare`; $1 is the bus folder, $2 the
    /// socket systemd-socket-activate listens on, $3 empty as root, else `uid:gid`: the namespace
    /// was made as root of a user namespace (mount(8) wants root), and the bus runs as uid:gid
    /// again in a user namespace inside it, so that the broker sees each client's own uid.
    /// The shell waits for the launcher rather than becoming it: systemd-socket-activate closes
    /// every descriptor it was not given, among them the one by which Foundation's Process learns
    /// that its child ended, and Foundation then waits for that process on the thread that sees
    /// every child end: no other Process of the test would be seen to finish.
    private static let script = #"""
    set -eu
    [ -d /run/systemd ] || mkdir -p /run/systemd
    mount -t tmpfs -o mode=0755 time-test-journal /run/systemd
    mkdir /run/systemd/journal
    systemd-socket-activate --datagram -l /run/systemd/journal/socket sh -c 'exec cat <&3' >> "$1/journal.log" 2>&1 &
    tries=0
    until [ -S /run/systemd/journal/socket ]; do
        tries=$((tries + 1)); [ "$tries" -lt 500 ] || { echo "no journal socket" >&2; exit 1; }
        sleep 0.01
    done
    export XDG_RUNTIME_DIR="$1/runtime"
    launch='systemd-socket-activate -E XDG_RUNTIME_DIR -E DBUS_SESSION_BUS_ADDRESS -l "$1" dbus-broker-launch --scope user --config-file "$2" & wait $!'
    if [ -n "$3" ]; then
        exec unshare --user --map-user="${3%:*}" --map-group="${3#*:}" sh -c "$launch" sh "$2" "$1/broker.conf"
    fi
    exec sh -c "$launch" sh "$2" "$1/broker.conf"
    """#

    /// Starts the bus on a path socket, or on `abstractName` in the abstract namespace; returns the
    /// launcher's process (the leader of its process group) and the bus address.
    static func start(in directory: TemporaryDirectory, abstractName: String?, policy: String, limits: String) throws -> (Process, String) {
        let runtime = directory.file("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <policy context="default">\(policy)</policy>
          \(limits)
        </busconfig>
        """.write(toFile: directory.file("broker.conf"), atomically: true, encoding: .utf8)
        let path = runtime + "/bus"
        let listen = abstractName.map { "@" + $0 } ?? path
        let address = abstractName.map { "unix:abstract=" + $0 } ?? "unix:path=" + path
        let root = getuid() == 0
        let launcher = try Command.start("unshare", (root ? ["--mount"] : ["--map-root-user", "--mount"])
                                         + ["--propagation", "private", "sh", "-c", script, "sh", directory.path, listen,
                                            root ? "" : "\(getuid()):\(getgid())"],
                                         environment: ["DBUS_SESSION_BUS_ADDRESS": address], log: directory.file("launcher.log"))
        func failure(_ what: String) -> FixtureError {
            let log = [directory.file("launcher.log"), directory.file("journal.log")]
                .map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }.joined(separator: "\n")
            return FixtureError("dbus-broker \(what); its log:\n\(log)")
        }
        // The first connection starts the launcher; a bus that answers Hello and GetId is up.
        let listening = wait(seconds: 10) {
            !launcher.isRunning || abstractName != nil || FileManager.default.fileExists(atPath: path)
        }
        guard listening, launcher.isRunning else {
            defer { kill(-launcher.processIdentifier, SIGKILL); launcher.waitUntilExit() }
            throw failure("did not listen on \(listen)")
        }
        do {
            var connection: BusConnection?
            // An abstract socket cannot be watched for: connecting is the test.
            try waitFor("dbus-broker's socket", seconds: 10) {
                connection = try? BusConnection(address: address)
                return connection != nil || !launcher.isRunning
            }
            guard let connection else { throw failure("exited before it answered") }
            defer { connection.close() }
            _ = try connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                    interface: "org.freedesktop.DBus", member: "GetId", timeoutMilliseconds: 10_000)
        } catch let error as FixtureError {
            kill(-launcher.processIdentifier, SIGKILL)
            launcher.waitUntilExit()
            throw error
        } catch {
            kill(-launcher.processIdentifier, SIGKILL)
            launcher.waitUntilExit()
            throw failure("did not answer GetId (\(error))")
        }
        return (launcher, address)
    }
}
