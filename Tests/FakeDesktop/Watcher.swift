// `time-fake-desktop --status-notifier-watcher`: a StatusNotifierWatcher alone, on the session
// bus, for scripts (scripts/test-deb.sh) that check an agent registers its tray item: it owns
// org.kde.StatusNotifierWatcher, says a host is registered, keeps each item's service and the
// unique name of the connection that registered it (property RegisteredStatusNotifierItems, as
// KDE's watcher), and prints a line per registration.
import DBusKit
import Glibc

final class FakeWatcher {
    let session: BusConnection
    var items: [String] = []

    init() throws {
        session = try BusConnection.session()
        session.attachToMainContext(nil)
        try session.export(object: ExportedObject(path: "/StatusNotifierWatcher", interfaces: [watcher]))
        guard try session.requestName("org.kde.StatusNotifierWatcher") == .primaryOwner else {
            throw BusError(name: BusError.failed, message: "org.kde.StatusNotifierWatcher is taken on this bus")
        }
    }

    var watcher: Interface {
        Interface(name: "org.kde.StatusNotifierWatcher", methods: [
            Method(name: "RegisterStatusNotifierItem", inArgs: [Argument("service", "s")]) { [unowned self] call in
                let service = call.arguments.first?.stringValue ?? ""
                let item = "\(service) \(call.sender ?? "")"
                self.items.append(item)
                let line = "registered \(item)\n"
                _ = line.withCString { write(1, $0, strlen($0)) }
                try self.session.emitSignal(path: "/StatusNotifierWatcher", interface: "org.kde.StatusNotifierWatcher",
                                            name: "StatusNotifierItemRegistered", arguments: [.string(service)])
                return []
            },
            Method(name: "RegisterStatusNotifierHost", inArgs: [Argument("service", "s")]) { _ in [] },
        ], properties: [
            Property(name: "RegisteredStatusNotifierItems", signature: "as") { [unowned self] in .stringArray(self.items) },
            Property(name: "IsStatusNotifierHostRegistered", signature: "b") { .bool(true) },
            Property(name: "ProtocolVersion", signature: "i") { .int32(0) },
        ], signals: [Signal(name: "StatusNotifierItemRegistered", args: [Argument("service", "s")])])
    }
}
