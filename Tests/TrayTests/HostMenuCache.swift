import DBusKit
import Foundation
import TestSupport

/// A dbusmenu as a real host keeps it between signals, reduced to what decides what it draws.
/// Where the real hosts run here, scripts/test-tray.sh checks them; this keeps their rules next
/// to the unit tests, read from their sources:
///   - GNOME's AppIndicator extension 46 (dbusMenu.js): on start and on every `LayoutUpdated` it
///     asks `GetLayout(0, -1, ["type", "children-display"])`; an id it has not seen gets its
///     properties from `GetGroupProperties`, an id it knows keeps every other property as it was.
///     `ItemsPropertiesUpdated` sets what it names and drops what it lists as removed. An entry
///     it knows never moves on screen (its `child-moved` handler takes its arguments in the wrong
///     order); a new one is inserted at its index, a gone one removed.
///   - Plasma 5.27 (libdbusmenu-qt's importer): `GetLayout` with every property; each entry takes
///     the properties the answer names and keeps the others, whether it is new or known.
///     `ItemsPropertiesUpdated` likewise; a removed property goes back to its default.
/// Both fall back to dbusmenu's defaults (visible and enabled true, label "") for what they
/// never got. Signals are taken in the order they came, as a host's main loop does.
final class HostMenuCache {
    enum Kind: String { case appIndicator = "GNOME AppIndicator", plasma = "Plasma" }

    /// What a person sees of one entry of a menu.
    struct Shown: Equatable, CustomStringConvertible {
        var label: String
        var enabled: Bool
        var mark: Int32?
        var submenu: [Shown]

        var description: String {
            let state = (enabled ? "" : " (greyed)") + (mark.map { $0 == 1 ? " (•)" : " ( )" } ?? "")
            return label + state + (submenu.isEmpty ? "" : " [" + submenu.map(\.description).joined(separator: ", ") + "]")
        }
    }

    let kind: Kind
    private let connection: BusConnection
    private let tray: TrayClient
    private var properties: [Int32: [String: DBusValue]] = [:]
    private var children: [Int32: [Int32]] = [:]
    private var pending: [(member: String, arguments: [DBusValue])] = []

    init(_ kind: Kind, bus: PrivateBus, itemName: String) throws {
        self.kind = kind
        connection = try bus.connect()
        connection.attachToMainContext(nil)
        tray = TrayClient(connection: connection, name: itemName)
        try connection.addMatch("type='signal',interface='com.canonical.dbusmenu',path='/MenuBar'")
        connection.onSignal { [unowned self] message in
            guard message.interface == "com.canonical.dbusmenu", let member = message.member else { return }
            self.pending.append((member, (try? message.arguments()) ?? []))
        }
        try readLayout()
    }

    func stop() { connection.close() }

    /// Takes every signal that arrived, in order, making the calls the host would make.
    func catchUp() throws {
        TestWatcher.pump()
        while !pending.isEmpty {
            let (member, arguments) = pending.removeFirst()
            switch member {
            case "LayoutUpdated": try readLayout()
            case "ItemsPropertiesUpdated": apply(arguments)
            default: break
            }
        }
    }

    /// The menu as this host draws it: visible entries, separators left out.
    func shown(_ parent: Int32 = 0) -> [Shown] {
        (children[parent] ?? []).compactMap { id in
            let values = properties[id] ?? [:]
            guard values["visible"]?.boolValue ?? true, values["type"]?.stringValue != "separator" else { return nil }
            let toggled = values["toggle-type"] != nil
            return Shown(label: HostMenuCache.unescaped(values["label"]?.stringValue ?? ""),
                         enabled: values["enabled"]?.boolValue ?? true,
                         mark: toggled ? (values["toggle-state"]?.int32Value ?? 0) : nil, submenu: shown(id))
        }
    }

    /// The same, read afresh with every property (what a host that forgot everything would draw).
    static func truth(_ tray: TrayClient) throws -> [Shown] {
        func shown(_ node: MenuNode) -> [Shown] {
            node.children.compactMap { child in
                let values = child.properties
                guard values["visible"]?.boolValue ?? true, values["type"]?.stringValue != "separator" else { return nil }
                return Shown(label: unescaped(values["label"]?.stringValue ?? ""), enabled: values["enabled"]?.boolValue ?? true,
                             mark: values["toggle-type"] != nil ? (values["toggle-state"]?.int32Value ?? 0) : nil,
                             submenu: shown(child))
            }
        }
        return shown(try tray.layout().root)
    }

    /// A dbusmenu label without its mnemonic marks: `__` is a literal underscore, a lone `_` marks the key.
    static func unescaped(_ label: String) -> String {
        var out = "", underscore = false
        for character in label {
            if character == "_" && !underscore { underscore = true; continue }
            underscore = false
            out.append(character)
        }
        return out
    }

    private func readLayout() throws {
        let names = kind == .appIndicator ? ["type", "children-display"] : []
        let root = try tray.layout(names: names).root
        var unseen: [Int32] = []
        var present = Set<Int32>()
        func take(_ node: MenuNode) {
            present.insert(node.id)
            let ids = node.children.map(\.id)
            if properties[node.id] == nil {
                properties[node.id] = node.properties
                unseen.append(node.id)
                children[node.id] = ids
            } else {
                properties[node.id]!.merge(node.properties) { _, new in new }
                children[node.id] = kind == .appIndicator ? Self.unmoved(children[node.id] ?? [], becoming: ids) : ids
            }
            node.children.forEach(take)
        }
        take(root)
        for id in properties.keys where !present.contains(id) { properties[id] = nil; children[id] = nil }
        guard kind == .appIndicator, !unseen.isEmpty else { return }
        let reply = try tray.menu("GetGroupProperties", [.array(elementSignature: "i", unseen.map { .int32($0) }), .stringArray([])])
        for entry in reply[0].arrayValue ?? [] {
            guard case .structure(let fields) = entry, let id = fields[0].int32Value, let values = fields[1].variantDictionary else { continue }
            properties[id]?.merge(values) { _, new in new }
        }
    }

    /// The order GNOME's AppIndicator shows after a layout: known entries where they were, new
    /// ones inserted at their index (counted in the list as it stands), gone ones removed.
    static func unmoved(_ shown: [Int32], becoming ids: [Int32]) -> [Int32] {
        var order = shown
        for (index, id) in ids.enumerated() where !order.contains(id) { order.insert(id, at: min(index, order.count)) }
        order.removeAll { !ids.contains($0) }
        return order
    }

    private func apply(_ arguments: [DBusValue]) {
        guard arguments.count == 2 else { return }
        for entry in arguments[0].arrayValue ?? [] {
            guard case .structure(let fields) = entry, let id = fields[0].int32Value, let values = fields[1].variantDictionary else { continue }
            properties[id]?.merge(values) { _, new in new }
        }
        for entry in arguments[1].arrayValue ?? [] {
            guard case .structure(let fields) = entry, let id = fields[0].int32Value else { continue }
            for name in fields[1].arrayValue?.compactMap(\.stringValue) ?? [] { properties[id]?[name] = nil }
        }
    }
}
