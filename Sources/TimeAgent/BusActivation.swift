import DBusKit

/// `time-agent --activate`, what the login's autostart entry runs: the session bus is asked to
/// start the agent (`StartServiceByName`, D-Bus activation) instead of this process becoming it.
/// The bus starts at most one owner of the name, however many clients ask at once, so the
/// autostart entry and a panel or timectl calling at the same moment of a login never start two
/// agents; and where the bus hands activation to systemd, the agent runs as time-agent.service
/// (`systemctl --user status time-agent` shows it, with that unit's UMask and restarts).
enum BusActivation {
    enum Outcome: Equatable {
        /// The agent runs (the bus started it, or it was running already): nothing left to do.
        case running
        /// The bus could not start it; `reason` says why, and this process serves instead.
        case serveHere(reason: String)
    }

    /// How long the bus may take to start the agent (its own limit is often longer).
    static let timeoutMilliseconds: Int32 = 30_000

    static func start() -> Outcome {
        let connection: BusConnection
        do {
            connection = try BusConnection.session()
        } catch {
            return .serveHere(reason: "no session bus to ask (\(error))")
        }
        defer { connection.close() }
        do {
            let reply = try connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                            interface: "org.freedesktop.DBus", member: "StartServiceByName",
                                            arguments: [.string(Contract.busName), .uint32(0)],
                                            timeoutMilliseconds: timeoutMilliseconds)
            Log.info(reply.first?.uint32Value == 2 ? "\(Contract.busName) was running already"
                                                   : "the session bus started \(Contract.busName)")
            return .running
        } catch {
            // No activation file the bus reads (an install outside its service folders), no such
            // unit for systemd, or a start that failed: unless an agent runs now, serve here.
            if (try? connection.nameHasOwner(Contract.busName)) == true { return .running }
            return .serveHere(reason: "the session bus could not start \(Contract.busName) (\(error))")
        }
    }
}
