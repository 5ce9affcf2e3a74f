/// The ids hosts see for a menu's entries: the owner's own, except where a host would show a
/// submenu's entries out of order. GNOME's AppIndicator 46 never moves an entry it knows (its
/// handler of its own `child-moved` signal takes the arguments in the wrong order) and inserts a
/// new one at its index before it removes the gone ones: after Pause became Resume and an Undo
/// line appeared, or the open project rose to the top of Start, it kept the old order, or put
/// an entry in the wrong place. When that would happen, every entry of that submenu is announced
/// under a new id: removed and added again, which every host draws in order.
struct MenuIdentity {
    /// Ids handed out to renamed entries: far above any the owner uses (its ids are small, or a
    /// small base plus a record's id), and never handed out twice.
    private static let firstFreshID: Int32 = 1_500_000_000

    /// The owner's id of every entry shown → the id hosts know it by.
    private var wireIDs: [Int32: Int32] = [0: 0]
    /// The last menu, in the owner's ids.
    private var last = MenuTree([])
    private var nextFresh = MenuIdentity.firstFreshID

    /// `menu` (in the owner's ids) with the ids hosts must see, given the menus before it.
    mutating func hostView(of menu: MenuTree) -> MenuTree {
        var assigned: [Int32: Int32] = [0: 0]
        for (parent, node) in menu.nodes {
            let before = last.nodes[parent]?.children ?? []
            // An entry keeps its id while it stays in this submenu; one from another submenu
            // would be taken there for the one it was, so it is new here.
            var ids = node.children.map { child -> Int32 in
                guard let id = wireIDs[child] else { return child }
                return before.contains(child) ? id : fresh()
            }
            if last.nodes[parent] != nil, !Self.drawnInOrder(ids, showing: before.compactMap { wireIDs[$0] }) {
                ids = node.children.map { _ in fresh() }
            }
            for (child, id) in zip(node.children, ids) { assigned[child] = id }
        }
        last = menu
        wireIDs = assigned
        return menu.renumbered(assigned)
    }

    /// The id hosts know the owner's entry `id` by (nil: not in the menu).
    func hostID(of id: Int32) -> Int32? { wireIDs[id] }

    private mutating func fresh() -> Int32 {
        defer { nextFresh = nextFresh == Int32.max ? Self.firstFreshID : nextFresh + 1 }
        return nextFresh
    }

    /// Whether a host that shows `shown` and merges the new list `ids` the way AppIndicator 46
    /// does ends up with `ids`: each id it does not know is inserted at its index into the list
    /// as it stands, the known ones stay where they are, and the gone ones are removed last.
    static func drawnInOrder(_ ids: [Int32], showing shown: [Int32]) -> Bool {
        var list = shown
        for (index, id) in ids.enumerated() where !shown.contains(id) { list.insert(id, at: min(index, list.count)) }
        let staying = Set(ids)
        return list.filter(staying.contains) == ids
    }
}
