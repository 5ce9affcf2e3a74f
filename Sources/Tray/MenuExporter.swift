import DBusKit

/// `com.canonical.dbusmenu` at one object path: serves a `MenuTree` and announces its changes:
/// the new properties of every entry that stays (`ItemsPropertiesUpdated`), and a new layout
/// revision when entries come, go or move (`LayoutUpdated`). Hosts need both after a structural
/// change: they re-read an existing entry's properties from neither the layout nor the revision.
/// A moved entry is announced under a new id (`MenuIdentity`).
final class MenuExporter {
    static let interfaceName = "com.canonical.dbusmenu"

    let path: String
    /// The menu as hosts see it (its ids from `identity`).
    private(set) var tree = MenuTree([])
    private var identity = MenuIdentity()
    private(set) var revision: UInt32 = 1
    /// Rises with every update that changed anything a host shows.
    private var changes = 0
    private weak var connection: BusConnection?
    /// Called when a host is about to show the root menu (`AboutToShow` of id 0): the owner may
    /// bring it up to date first, and the host is told to read it again when that changed it.
    var aboutToShow: (() -> Void)?

    /// Where the entries' icons are, when outside the system's icon folders ("" = none).
    let iconThemePath: String

    init(path: String, iconThemePath: String = "") {
        self.path = path
        self.iconThemePath = iconThemePath
    }

    func export(on connection: BusConnection) throws {
        self.connection = connection
        try connection.export(object: ExportedObject(path: path, interfaces: [interface]))
    }

    /// Replaces the menu; tells hosts what changed.
    func update(_ items: [TrayMenuItem]) {
        let new = identity.hostView(of: MenuTree(items))
        let old = tree
        tree = new
        let reshaped = !new.hasSameShape(as: old)
        if reshaped { revision &+= 1 }
        guard let connection, connection.isConnected else { return }
        let (updated, removed) = new.propertyChanges(since: old)
        if reshaped || !updated.isEmpty || !removed.isEmpty { changes += 1 }
        if !updated.isEmpty || !removed.isEmpty {
            try? connection.emitSignal(path: path, interface: Self.interfaceName, name: "ItemsPropertiesUpdated", arguments: [
                .array(elementSignature: "(ia{sv})", updated.map { .structure([.int32($0.id), .vardict($0.properties)]) }),
                .array(elementSignature: "(ias)", removed.map { .structure([.int32($0.id), .stringArray($0.names)]) }),
            ])
        }
        if reshaped {
            try? connection.emitSignal(path: path, interface: Self.interfaceName, name: "LayoutUpdated",
                                       arguments: [.uint32(revision), .int32(0)])
        }
    }

    /// Asks the hosts showing the menu to open it at item `id` (dbusmenu's
    /// `ItemActivationRequested`, as for a hotkey); hosts that do not honour it ignore it.
    func requestOpening(_ id: Int32) {
        guard let connection, connection.isConnected, let hostID = identity.hostID(of: id), tree.nodes[hostID] != nil else { return }
        try? connection.emitSignal(path: path, interface: Self.interfaceName, name: "ItemActivationRequested",
                                   arguments: [.int32(hostID), .uint32(0)])
    }

    private func unknownItem(_ id: Int32) -> BusError {
        BusError(name: BusError.invalidArgs, message: "There is no menu item with id \(id)")
    }

    /// Runs a click: the entry's action, after the reply has gone out.
    private func clicked(_ id: Int32, event: String, call: MethodCall) throws {
        guard let node = tree.nodes[id] else { throw unknownItem(id) }
        guard event == "clicked", let action = node.action else { return }
        let previous = call.afterReply
        call.afterReply = { previous?(); action() }
    }

    /// Called before the menu is read or clicked (see `TrayItem.beforeRead`).
    var beforeRead: (() -> Void)?

    /// Runs `aboutToShow` for the root; whether the menu changed meanwhile (the host reads it again).
    private func showing(_ ids: [Int32]) -> Bool {
        guard ids.contains(0), let aboutToShow else { return false }
        let before = changes
        aboutToShow()
        return changes != before
    }

    var interface: Interface {
        Interface(name: Self.interfaceName, methods: [
            Method(name: "GetLayout", inArgs: [Argument("parentId", "i"), Argument("recursionDepth", "i"), Argument("propertyNames", "as")],
                   outArgs: [Argument("revision", "u"), Argument("layout", "(ia{sv}av)")]) { [unowned self] call in
                self.beforeRead?()
                let id = call.arguments[0].int32Value!, depth = call.arguments[1].int32Value!
                let names = call.arguments[2].arrayValue!.compactMap(\.stringValue)
                guard let layout = self.tree.layout(of: id, depth: depth, names: names) else { throw self.unknownItem(id) }
                return [.uint32(self.revision), layout]
            },
            Method(name: "GetGroupProperties", inArgs: [Argument("ids", "ai"), Argument("propertyNames", "as")],
                   outArgs: [Argument("properties", "a(ia{sv})")]) { [unowned self] call in
                self.beforeRead?()
                var ids = call.arguments[0].arrayValue!.compactMap(\.int32Value)
                if ids.isEmpty { ids = self.tree.nodes.keys.sorted() }
                let names = call.arguments[1].arrayValue!.compactMap(\.stringValue)
                let entries = ids.compactMap { id in
                    self.tree.properties(of: id, names: names).map { DBusValue.structure([.int32(id), .vardict($0)]) }
                }
                return [.array(elementSignature: "(ia{sv})", entries)]
            },
            Method(name: "GetProperty", inArgs: [Argument("id", "i"), Argument("name", "s")],
                   outArgs: [Argument("value", "v")]) { [unowned self] call in
                self.beforeRead?()
                let id = call.arguments[0].int32Value!, name = call.arguments[1].stringValue!
                guard let value = self.tree.properties(of: id, names: [name])?[name] else {
                    throw BusError(name: BusError.invalidArgs, message: "Menu item \(id) has no property '\(name.prefix(40))'")
                }
                return [.variant(value)]
            },
            Method(name: "Event", inArgs: [Argument("id", "i"), Argument("eventId", "s"), Argument("data", "v"), Argument("timestamp", "u")]) { [unowned self] call in
                self.beforeRead?()
                try self.clicked(call.arguments[0].int32Value!, event: call.arguments[1].stringValue!, call: call)
                return []
            },
            Method(name: "EventGroup", inArgs: [Argument("events", "a(isvu)")], outArgs: [Argument("idErrors", "ai")]) { [unowned self] call in
                self.beforeRead?()
                var errors: [DBusValue] = []
                for event in call.arguments[0].arrayValue! {
                    guard case .structure(let fields) = event, let id = fields[0].int32Value, let name = fields[1].stringValue else { continue }
                    do { try self.clicked(id, event: name, call: call) } catch { errors.append(.int32(id)) }
                }
                return [.array(elementSignature: "i", errors)]
            },
            Method(name: "AboutToShow", inArgs: [Argument("id", "i")], outArgs: [Argument("needUpdate", "b")]) { [unowned self] call in
                self.beforeRead?()
                let id = call.arguments[0].int32Value!
                guard self.tree.nodes[id] != nil else { throw self.unknownItem(id) }
                return [.bool(self.showing([id]))]
            },
            Method(name: "AboutToShowGroup", inArgs: [Argument("ids", "ai")],
                   outArgs: [Argument("updatesNeeded", "ai"), Argument("idErrors", "ai")]) { [unowned self] call in
                self.beforeRead?()
                let ids = call.arguments[0].arrayValue!.compactMap(\.int32Value)
                let errors = ids.filter { self.tree.nodes[$0] == nil }.map { DBusValue.int32($0) }
                let updates: [DBusValue] = self.showing(ids) ? [.int32(0)] : []
                return [.array(elementSignature: "i", updates), .array(elementSignature: "i", errors)]
            },
        ], properties: [
            Property(name: "Version", signature: "u", emitsChange: .const) { .uint32(3) },
            Property(name: "TextDirection", signature: "s", emitsChange: .const) { .string("ltr") },
            Property(name: "Status", signature: "s", emitsChange: .const) { .string("normal") },
            Property(name: "IconThemePath", signature: "as", emitsChange: .const) { [unowned self] in
                .stringArray(self.iconThemePath.isEmpty ? [] : [self.iconThemePath])
            },
        ], signals: [
            Signal(name: "ItemsPropertiesUpdated", args: [Argument("updatedProps", "a(ia{sv})"), Argument("removedProps", "a(ias)")]),
            Signal(name: "LayoutUpdated", args: [Argument("revision", "u"), Argument("parent", "i")]),
            Signal(name: "ItemActivationRequested", args: [Argument("id", "i"), Argument("timestamp", "u")]),
        ])
    }
}
