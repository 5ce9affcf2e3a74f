import DBusKit
import Foundation

/// A private session bus for one test: the reference `dbus-daemon`, or `dbus-broker` (the session
/// bus of Fedora, Arch and others), chosen by `TIME_TEST_BUS` (`dbus-daemon`, the default, or
/// `dbus-broker`) so that the same tests run on both. dbus-broker hands D-Bus activation to
/// systemd, which a test has not got: on it `canActivate` is false and a test starts the agent
/// itself.
public final class PrivateBus {
    public enum Kind: String, CaseIterable, Sendable {
        case dbusDaemon = "dbus-daemon"
        case dbusBroker = "dbus-broker"

        /// What `TIME_TEST_BUS` names (dbus-daemon when it is unset or empty).
        public static func selected() throws -> Kind {
            let named = ProcessInfo.processInfo.environment["TIME_TEST_BUS"] ?? ""
            if named.isEmpty { return .dbusDaemon }
            guard let kind = Kind(rawValue: named) else {
                throw FixtureError("TIME_TEST_BUS=\(named) names no bus this project tests on: use "
                                   + Kind.allCases.map(\.rawValue).joined(separator: " or "))
            }
            return kind
        }
    }

    /// Where the bus listens: a file (`unix:path=`, what session buses use) or a name in Linux's
    /// abstract namespace (`unix:abstract=`, which dbus-daemon's `unix:tmpdir=` gives).
    public enum Socket: Sendable { case path, abstract }

    public let kind: Kind
    public let address: String
    public let directory: TemporaryDirectory
    public let serviceDirectory: String
    private let server: Process

    /// A bus of the kind `TIME_TEST_BUS` selects.
    public convenience init(socket: Socket = .path) throws {
        try self.init(kind: Kind.selected(), socket: socket)
    }

    public init(kind: Kind, socket: Socket = .path) throws {
        self.kind = kind
        directory = TemporaryDirectory("time-bus")
        serviceDirectory = directory.file("services")
        try FileManager.default.createDirectory(atPath: serviceDirectory, withIntermediateDirectories: true)
        let abstractName = "/time-test-bus-\(getpid())-\(URL(fileURLWithPath: directory.path).lastPathComponent)"
        switch kind {
        case .dbusDaemon:
            (server, address) = try PrivateBus.startDaemon(in: directory, serviceDirectory: serviceDirectory,
                                                           listen: socket == .path ? "unix:dir=\(directory.path)" : "unix:abstract=\(abstractName)")
        case .dbusBroker:
            (server, address) = try BrokerBus.start(in: directory, abstractName: socket == .abstract ? abstractName : nil,
                                                    policy: PrivateBus.openPolicy(eavesdrop: false), limits: PrivateBus.limits)
        }
    }

    /// Whether the bus starts a service from an activation file (`installService`).
    public var canActivate: Bool { kind == .dbusDaemon }

    /// The environment that points a child process at this bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// A client connection to this bus.
    public func connect() throws -> BusConnection { try BusConnection(address: address) }

    /// Installs an activation file so the bus starts `exec` on the first call to `name`.
    public func installService(name: String, exec: String) throws {
        guard canActivate else {
            throw FixtureError("\(kind.rawValue) starts services only through systemd, which a test has not got: start \(name) first")
        }
        try "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n".write(toFile: serviceDirectory + "/\(name).service", atomically: true, encoding: .utf8)
        // The daemon re-reads its service folders when told to.
        _ = try? Command.run("dbus-send", ["--bus=\(address)", "--dest=org.freedesktop.DBus", "--type=method_call",
                                           "/org/freedesktop/DBus", "org.freedesktop.DBus.ReloadConfig"])
    }

    public func stop() {
        // dbus-broker's launcher leads its own process group (Foundation's Process starts each
        // child in one), with the broker and the journal reader: they go together. dbus-daemon
        // alone is stopped: what it activated is in its group too, and must see the bus go away.
        let target = kind == .dbusBroker ? -server.processIdentifier : server.processIdentifier
        if server.isRunning { kill(target, SIGTERM) }
        if !wait(seconds: 5, { !server.isRunning }) { kill(target, SIGKILL) }
        server.waitUntilExit()
        directory.remove()
    }

    public var processIdentifier: Int32 { server.processIdentifier }

    // MARK: - Configuration shared by both buses

    /// Everyone may own, send and receive anything (a session bus' own policy).
    static func openPolicy(eavesdrop: Bool) -> String {
        eavesdrop
            ? "<allow send_destination=\"*\" eavesdrop=\"true\"/><allow eavesdrop=\"true\"/><allow own=\"*\"/>"
            : "<allow send_destination=\"*\"/><allow receive_sender=\"*\"/><allow own=\"*\"/>"
    }

    /// Room for the tests that open hundreds of connections at once, and the message and byte
    /// limits of a desktop's session bus (Debian's /usr/share/dbus-1/session.conf), so a test
    /// meets what a real session bus refuses: nothing below the protocol's own limits (without
    /// them dbus-daemon would drop a client sending more than 32 MiB, which no session bus does).
    static let limits = "<limit name=\"max_completed_connections\">1000</limit><limit name=\"max_connections_per_user\">1000</limit>"
        + "<limit name=\"max_incoming_bytes\">1000000000</limit><limit name=\"max_outgoing_bytes\">1000000000</limit>"
        + "<limit name=\"max_message_size\">1000000000</limit>"

    /// The largest message the bus passes on: the protocol's (the configured limit is above it,
    /// and dbus-broker has only the protocol's). A client that sends more is disconnected.
    public static let maximumMessage = 134_217_728
    /// The largest array in a message (the protocol's): a message with a longer one is invalid.
    public static let maximumArray = 67_108_864

    private static func startDaemon(in directory: TemporaryDirectory, serviceDirectory: String, listen: String) throws -> (Process, String) {
        let config = directory.file("session.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>\(listen)</listen>
          <servicedir>\(serviceDirectory)</servicedir>
          <policy context="default">\(openPolicy(eavesdrop: true))</policy>
          \(limits)
        </busconfig>
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let addressFile = directory.file("address")
        let daemon = try Command.start("dbus-daemon", ["--config-file=\(config)", "--nofork", "--nopidfile", "--print-address=1"],
                                       log: addressFile)
        var found = ""
        wait(seconds: 10) {
            found = (try? String(contentsOfFile: addressFile, encoding: .utf8))?.split(separator: "\n").first.map(String.init) ?? ""
            return found.hasPrefix("unix:")
        }
        guard found.hasPrefix("unix:") else {
            Command.stop(daemon)
            throw FixtureError("dbus-daemon did not start")
        }
        return (daemon, found)
    }
}
