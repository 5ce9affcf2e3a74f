import CGLib
import DBusKit
import Foundation
import TestSupport

/// A stand-in StatusNotifierWatcher in the test process: owns the watcher's name on the private
/// bus and records what registers. Its calls are served when `pump()` runs the main context.
/// Like the host behind a real watcher, it reads a registered item's properties (GetAll) right
/// after answering, unless `readsItems` is false (a host that lost the item).
final class TestWatcher {
    let connection: BusConnection
    private(set) var registered: [String] = []

    init(bus: PrivateBus, readsItems: Bool = true) throws {
        connection = try bus.connect()
        connection.attachToMainContext(nil)
        let object = ExportedObject(path: "/StatusNotifierWatcher", interfaces: [Interface(
            name: "org.kde.StatusNotifierWatcher",
            methods: [Method(name: "RegisterStatusNotifierItem", inArgs: [Argument("service", "s")]) { [unowned self] call in
                let service = call.arguments[0].stringValue ?? ""
                self.registered.append(service)
                if readsItems {
                    call.afterReply = { [unowned self] in
                        _ = try? self.connection.call(destination: service, path: "/StatusNotifierItem",
                                                      interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                                                      arguments: [.string("org.kde.StatusNotifierItem")], timeoutMilliseconds: 5_000)
                    }
                }
                return []
            }],
            properties: [Property(name: "IsStatusNotifierHostRegistered", signature: "b") { .bool(true) }],
            signals: [Signal(name: "StatusNotifierItemUnregistered", args: [Argument("service", "s")])])])
        try connection.export(object: object)
        try connection.requestName("org.kde.StatusNotifierWatcher")
    }

    /// Serves whatever arrived.
    static func pump() {
        while g_main_context_iteration(nil, 0) != 0 {}
    }

    /// Says the item is gone (what a watcher emits when its host lost or destroyed it).
    func drop(_ service: String) throws {
        try connection.emitSignal(path: "/StatusNotifierWatcher", interface: "org.kde.StatusNotifierWatcher",
                                  name: "StatusNotifierItemUnregistered", arguments: [.string(service)])
        connection.flush()
    }

    func waitForRegistration(count: Int, seconds: Double = 10) -> Bool {
        wait(seconds: seconds) { TestWatcher.pump(); return registered.count >= count }
    }

    func stop() { connection.close() }
}

/// The calls a tray host makes on the item (what KDE, GNOME's AppIndicator and libdbusmenu call).
struct TrayClient {
    let connection: BusConnection
    let name: String

    func item(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try connection.call(destination: name, path: "/StatusNotifierItem", interface: "org.kde.StatusNotifierItem",
                            member: member, arguments: arguments, timeoutMilliseconds: 10_000)
    }

    func menu(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try connection.call(destination: name, path: "/MenuBar", interface: "com.canonical.dbusmenu",
                            member: member, arguments: arguments, timeoutMilliseconds: 10_000)
    }

    func itemProperties() throws -> [String: DBusValue] {
        let reply = try connection.call(destination: name, path: "/StatusNotifierItem", interface: "org.freedesktop.DBus.Properties",
                                        member: "GetAll", arguments: [.string("org.kde.StatusNotifierItem")], timeoutMilliseconds: 10_000)
        return reply[0].variantDictionary ?? [:]
    }

    func itemProperty(_ property: String) throws -> DBusValue {
        let reply = try connection.call(destination: name, path: "/StatusNotifierItem", interface: "org.freedesktop.DBus.Properties",
                                        member: "Get", arguments: [.string("org.kde.StatusNotifierItem"), .string(property)],
                                        timeoutMilliseconds: 10_000)
        return reply[0].variantValue!
    }

    /// The whole menu as a tree.
    func layout(parent: Int32 = 0, depth: Int32 = -1, names: [String] = []) throws -> (revision: UInt32, root: MenuNode) {
        let reply = try menu("GetLayout", [.int32(parent), .int32(depth), .stringArray(names)])
        return (reply[0].uint32Value!, MenuNode(reply[1]))
    }
}

/// One node of a GetLayout answer.
struct MenuNode {
    let id: Int32
    let properties: [String: DBusValue]
    let children: [MenuNode]

    init(_ value: DBusValue) {
        guard case .structure(let fields) = value else { fatalError("a layout node is a structure, got \(value.signature)") }
        id = fields[0].int32Value!
        properties = fields[1].variantDictionary!
        children = fields[2].arrayValue!.map { MenuNode($0.variantValue!) }
    }

    var label: String? { properties["label"]?.stringValue }

    /// The first node (depth first) whose label is `label`.
    func find(_ label: String) -> MenuNode? {
        if self.label == label { return self }
        for child in children { if let found = child.find(label) { return found } }
        return nil
    }

    var labels: [String] { children.compactMap(\.label) }
}

/// Records the agent's signals of one interface at one path (by default the menu's), as a host
/// listening for changes would.
final class MenuSignals {
    let connection: BusConnection
    private(set) var received: [(member: String, arguments: [DBusValue])] = []

    init(bus: PrivateBus, interface: String = "com.canonical.dbusmenu", path: String = "/MenuBar") throws {
        connection = try bus.connect()
        connection.attachToMainContext(nil)
        try connection.addMatch("type='signal',interface='\(interface)',path='\(path)'")
        connection.onSignal { [unowned self] message in
            guard message.interface == interface, message.path == path, let member = message.member else { return }
            self.received.append((member, (try? message.arguments()) ?? []))
        }
    }

    func named(_ member: String) -> [[DBusValue]] { received.filter { $0.member == member }.map(\.arguments) }

    func waitFor(_ member: String, count: Int = 1, seconds: Double = 10) -> Bool {
        wait(seconds: seconds) { TestWatcher.pump(); return named(member).count >= count }
    }

    func reset() { TestWatcher.pump(); received = [] }
    func stop() { connection.close() }
}
