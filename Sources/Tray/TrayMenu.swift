import DBusKit

/// One entry of a tray menu, as the host shows it. Ids are chosen by the caller, positive, below
/// 1,500,000,000, and must stay the same for the same entry across updates (hosts keep what they
/// know of an id between calls); hosts see a moved entry under a new id (`MenuIdentity`).
public struct TrayMenuItem {
    public enum Toggle: Equatable, Sendable { case none, radio(Bool), checkmark(Bool) }

    public var id: Int32
    public var label: String
    public var enabled: Bool
    /// A hidden entry keeps its id (hosts keep what they know of it) and is shown again by
    /// setting this back.
    public var visible: Bool
    public var toggle: Toggle
    public var isSeparator: Bool
    public var children: [TrayMenuItem]
    /// Runs when the host reports a click on the entry.
    public var action: (() -> Void)?

    public init(id: Int32, label: String, enabled: Bool = true, visible: Bool = true, toggle: Toggle = .none,
                children: [TrayMenuItem] = [], action: (() -> Void)? = nil) {
        self.id = id
        self.label = label
        self.enabled = enabled
        self.visible = visible
        self.toggle = toggle
        self.isSeparator = false
        self.children = children
        self.action = action
    }

    public static func separator(id: Int32) -> TrayMenuItem {
        var item = TrayMenuItem(id: id, label: "")
        item.isSeparator = true
        return item
    }

    /// The dbusmenu properties of this entry. `enabled` and `visible` are always written, even
    /// at their defaults: a host that saw `false` keeps it until told otherwise (Plasma applies
    /// only the properties a layout names), so a default is never left to be implied. Every
    /// parent says `children-display` "submenu".
    var properties: [String: DBusValue] {
        var values: [String: DBusValue] = ["visible": .bool(visible)]
        if isSeparator {
            values["type"] = .string("separator")
            return values
        }
        values["label"] = .string(TrayMenuItem.mnemonicEscaped(label))
        values["enabled"] = .bool(enabled)
        switch toggle {
        case .none: break
        case .radio(let on):
            values["toggle-type"] = .string("radio")
            values["toggle-state"] = .int32(on ? 1 : 0)
        case .checkmark(let on):
            values["toggle-type"] = .string("checkmark")
            values["toggle-state"] = .int32(on ? 1 : 0)
        }
        if !children.isEmpty { values["children-display"] = .string("submenu") }
        return values
    }

    /// dbusmenu labels use `_` for a mnemonic: a literal underscore is written `__`.
    public static func mnemonicEscaped(_ text: String) -> String {
        text.replacingUnderscores()
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        var out = ""
        for character in self { out.append(character); if character == "_" { out.append("_") } }
        return out
    }
}

/// A menu as a flat index over its tree, with the root (id 0) on top.
struct MenuTree {
    struct Node {
        var properties: [String: DBusValue]
        var children: [Int32]
        var action: (() -> Void)?
    }

    private(set) var nodes: [Int32: Node] = [:]

    init(_ items: [TrayMenuItem]) {
        nodes[0] = Node(properties: ["children-display": .string("submenu")], children: [], action: nil)
        add(items, to: 0)
    }

    /// An entry whose id is not positive or already taken is left out (with its children), so a
    /// mistake in a menu never takes the process down.
    private mutating func add(_ items: [TrayMenuItem], to parent: Int32) {
        for item in items where item.id > 0 && nodes[item.id] == nil {
            nodes[item.id] = Node(properties: item.properties, children: [], action: item.action)
            nodes[parent]!.children.append(item.id)
            add(item.children, to: item.id)
        }
    }

    /// What a host that knows `old` must be told about the entries both menus have: for each,
    /// the properties whose values changed (or are new) and the names of those that are gone.
    /// Hosts take an existing entry's new values only from `ItemsPropertiesUpdated`, even when
    /// the layout changed too (GNOME's AppIndicator re-reads just the ids it does not know), so
    /// this covers every surviving entry, whatever else happened to the menu. Sorted by id.
    func propertyChanges(since old: MenuTree) -> (updated: [(id: Int32, properties: [String: DBusValue])],
                                                   removed: [(id: Int32, names: [String])]) {
        var updated: [(id: Int32, properties: [String: DBusValue])] = []
        var removed: [(id: Int32, names: [String])] = []
        for id in nodes.keys.sorted() {
            guard let before = old.nodes[id]?.properties, let now = nodes[id]?.properties else { continue }
            let changed = now.filter { before[$0.key] != $0.value }
            let gone = before.keys.filter { now[$0] == nil }.sorted()
            if !changed.isEmpty { updated.append((id, changed)) }
            if !gone.isEmpty { removed.append((id, gone)) }
        }
        return (updated, removed)
    }

    /// The same menu under other ids (`ids` maps each entry's id to its new one).
    func renumbered(_ ids: [Int32: Int32]) -> MenuTree {
        var copy = self
        copy.nodes = [:]
        for (id, node) in nodes {
            var moved = node
            moved.children = node.children.map { ids[$0] ?? $0 }
            copy.nodes[ids[id] ?? id] = moved
        }
        return copy
    }

    /// Whether `other` has the same entries in the same places (only properties may differ).
    func hasSameShape(as other: MenuTree) -> Bool {
        guard nodes.count == other.nodes.count else { return false }
        for (id, node) in nodes {
            guard let theirs = other.nodes[id], theirs.children == node.children,
                  (theirs.properties["type"] == nil) == (node.properties["type"] == nil) else { return false }
        }
        return true
    }

    /// The layout `(ia{sv}av)` of `id` down to `depth` levels (-1: all), with `names` only (empty: all).
    func layout(of id: Int32, depth: Int32, names: [String]) -> DBusValue? {
        guard let node = nodes[id] else { return nil }
        var children: [DBusValue] = []
        if depth != 0 {
            children = node.children.compactMap { child in
                layout(of: child, depth: depth < 0 ? -1 : depth - 1, names: names).map { DBusValue.variant($0) }
            }
        }
        return .structure([.int32(id), .vardict(filtered(node.properties, names)),
                           .array(elementSignature: "v", children)])
    }

    func properties(of id: Int32, names: [String]) -> [String: DBusValue]? {
        nodes[id].map { filtered($0.properties, names) }
    }

    private func filtered(_ properties: [String: DBusValue], _ names: [String]) -> [String: DBusValue] {
        names.isEmpty ? properties : properties.filter { names.contains($0.key) }
    }
}
