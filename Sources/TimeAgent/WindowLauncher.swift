import DBusKit

/// Opens Time's window, the application `io.github.timetracker.Time` (`time-tracker`), through
/// `org.freedesktop.Application.Activate` on its bus name: the session bus starts it when it is
/// not running (its desktop entry is `DBusActivatable`), and a running one comes to the front.
/// Knows whether such an application is there at all, so the tray can leave the entry out.
final class WindowLauncher {
    static let applicationID = Contract.desktopEntry
    /// GApplication's object path for the id: dots become slashes.
    static let objectPath = "/" + applicationID.split(separator: ".").joined(separator: "/")
    private static let ownerRule = "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(applicationID)'"

    private weak var connection: BusConnection?
    private var signalHandler: Int?
    /// Whether the bus can start the application or it runs (nil: not asked yet).
    private var known: Bool?
    /// Called when `isAvailable` changes (an application appeared, went, was installed or removed).
    var onAvailabilityChange: (() -> Void)?

    func attach(to connection: BusConnection) {
        self.connection = connection
        try? connection.addMatch(Self.ownerRule)
        signalHandler = connection.onSignal { [weak self] message in
            guard message.isSignal(interface: "org.freedesktop.DBus", member: "NameOwnerChanged"),
                  message.sender == "org.freedesktop.DBus",
                  (try? message.arguments())?.first?.stringValue == Self.applicationID else { return }
            self?.recheck()
        }
    }

    func detach() {
        if let signalHandler { connection?.removeSignalHandler(signalHandler) }
        signalHandler = nil
        if connection?.isConnected == true { try? connection?.removeMatch(Self.ownerRule) }
        connection = nil
    }

    /// Whether Open Time can do anything: the application runs, or the bus has a service file
    /// for it. Asked once; `recheck()` asks again.
    var isAvailable: Bool {
        if let known { return known }
        let found = lookUp()
        known = found
        return found
    }

    /// Asks the bus again (a host is about to show the menu: a package may have been installed
    /// since, and the bus reads new service files by itself but says nothing); tells
    /// `onAvailabilityChange` when the answer changed.
    func recheck() {
        let before = known
        known = lookUp()
        if before != nil, before != known { onAvailabilityChange?() }
    }

    /// Both questions go to the bus itself, which answers at once.
    private func lookUp() -> Bool {
        guard let connection, connection.isConnected else { return false }
        if (try? connection.nameHasOwner(Self.applicationID)) == true { return true }
        let names = (try? connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                          interface: "org.freedesktop.DBus", member: "ListActivatableNames",
                                          timeoutMilliseconds: 5_000))?.first?.arrayValue ?? []
        return names.contains(.string(Self.applicationID))
    }

    /// Sends `Activate` without waiting: starting the window takes a while, and nothing else may
    /// wait for it. `activationToken` (from the notification server) lets the window take the
    /// focus on Wayland and X11. `done` gets the error, if any, once the answer is in.
    func activate(activationToken: String, done: @escaping (BusError?) -> Void) {
        guard let connection, connection.isConnected else {
            return done(BusError(name: BusError.disconnected, message: "not connected to the session bus"))
        }
        var platformData: [String: DBusValue] = [:]
        if !activationToken.isEmpty {
            platformData["activation-token"] = .string(activationToken)
            platformData["desktop-startup-id"] = .string(activationToken)
        }
        do {
            let message = try Message(methodCall: Self.applicationID, path: Self.objectPath,
                                      interface: "org.freedesktop.Application", member: "Activate")
            message.autoStart = true
            try message.append([.vardict(platformData)])
            // A cold start of a GTK application under load can take long; the bus gives up at 25 s anyway.
            try connection.callAsync(message, timeoutMilliseconds: 30_000) { result in
                if case .failure(let error) = result { done(error) } else { done(nil) }
            }
        } catch let error as BusError {
            done(error)
        } catch {
            done(BusError(name: BusError.failed, message: "\(error)"))
        }
    }
}
