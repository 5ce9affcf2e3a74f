import DBusKit
import XCTest
@testable import Tray

/// The Tray module alone, no bus: the dbusmenu encoding of a menu model and the icon pixmaps.
final class TrayModelTests: XCTestCase {
    private let menu: [TrayMenuItem] = [
        TrayMenuItem(id: 1, label: "my_project — 0:42", enabled: false),
        .separator(id: 2),
        TrayMenuItem(id: 3, label: "Start", children: [
            TrayMenuItem(id: 10, label: "A", toggle: .radio(true)),
            TrayMenuItem(id: 11, label: "B", toggle: .radio(false)),
        ]),
        TrayMenuItem(id: 4, label: "Notes", toggle: .checkmark(true)),
    ]

    func testPropertiesAsLibdbusmenuWritesThem() {
        let tree = MenuTree(menu)
        XCTAssertEqual(tree.properties(of: 0, names: []), ["children-display": .string("submenu")])
        XCTAssertEqual(tree.properties(of: 1, names: []), ["label": .string("my__project — 0:42"), "enabled": .bool(false),
                                                          "visible": .bool(true)])
        XCTAssertEqual(tree.properties(of: 2, names: []), ["type": .string("separator"), "visible": .bool(true)])
        XCTAssertEqual(tree.properties(of: 3, names: [])?["children-display"], .string("submenu"))
        XCTAssertEqual(tree.properties(of: 10, names: []), ["label": .string("A"), "enabled": .bool(true), "visible": .bool(true),
                                                           "toggle-type": .string("radio"), "toggle-state": .int32(1)])
        XCTAssertEqual(tree.properties(of: 4, names: ["toggle-type"]), ["toggle-type": .string("checkmark")])
        XCTAssertNil(tree.properties(of: 99, names: []))
    }

    func testLayoutDepth() throws {
        let tree = MenuTree(menu)
        func children(_ value: DBusValue?) -> [DBusValue] {
            guard case .structure(let fields)? = value else { return [] }
            return fields[2].arrayValue ?? []
        }
        let full = tree.layout(of: 0, depth: -1, names: [])
        XCTAssertEqual(full?.signature, "(ia{sv}av)")
        XCTAssertEqual(children(full).count, 4)
        XCTAssertEqual(children(children(full)[2].variantValue).count, 2)
        XCTAssertEqual(children(children(tree.layout(of: 0, depth: 1, names: []))[2].variantValue).count, 0)
        XCTAssertEqual(children(tree.layout(of: 0, depth: 0, names: [])).count, 0)
        XCTAssertEqual(children(tree.layout(of: 3, depth: 1, names: [])).count, 2)
        XCTAssertNil(tree.layout(of: 42, depth: -1, names: []))
    }

    func testShapeChangesOnlyWhenEntriesComeOrGo() {
        var relabelled = menu
        relabelled[0].label = "other — 0:43"
        relabelled[2].children[0].toggle = .radio(false)
        XCTAssertTrue(MenuTree(menu).hasSameShape(as: MenuTree(relabelled)))
        var fewer = menu
        fewer.removeLast()
        XCTAssertFalse(MenuTree(menu).hasSameShape(as: MenuTree(fewer)))
        var swapped = menu
        swapped[0] = TrayMenuItem(id: 5, label: "Resume")
        XCTAssertFalse(MenuTree(menu).hasSameShape(as: MenuTree(swapped)))
    }

    /// Every entry both menus have is diffed, whether or not entries came or went: hosts take
    /// an existing entry's new values from nothing else. A value back at its default is sent as
    /// that value; a property that no longer applies is listed as removed.
    func testPropertyChangesCoverEveryEntryThatStays() {
        let before = MenuTree([
            TrayMenuItem(id: 1, label: "Not tracking", enabled: false),
            TrayMenuItem(id: 5, label: "Continue A"),
            TrayMenuItem(id: 4, label: "Stop", enabled: false),
            TrayMenuItem(id: 6, label: "Open", visible: false),
            TrayMenuItem(id: 7, label: "Notes", toggle: .checkmark(true)),
        ])
        let after = MenuTree([
            TrayMenuItem(id: 1, label: "A — 0:00", enabled: false),
            TrayMenuItem(id: 2, label: "Pause"),
            TrayMenuItem(id: 4, label: "Stop"),
            TrayMenuItem(id: 6, label: "Open"),
            TrayMenuItem(id: 7, label: "Notes"),
        ])
        XCTAssertFalse(after.hasSameShape(as: before))
        let (updated, removed) = after.propertyChanges(since: before)
        XCTAssertEqual(updated.map(\.id), [1, 4, 6], "neither the new entry 2 nor the gone 5")
        XCTAssertEqual(updated[0].properties, ["label": .string("A — 0:00")])
        XCTAssertEqual(updated[1].properties, ["enabled": .bool(true)])
        XCTAssertEqual(updated[2].properties, ["visible": .bool(true)])
        XCTAssertEqual(removed.map(\.id), [7])
        XCTAssertEqual(removed[0].names, ["toggle-state", "toggle-type"])
        XCTAssertTrue(MenuTree(menu).propertyChanges(since: MenuTree(menu)).updated.isEmpty, "nothing changed, nothing sent")
    }

    /// Where a host that never moves a known entry (GNOME's AppIndicator 46) would draw a
    /// submenu out of order, all of that submenu's entries get new ids (removed and added again);
    /// otherwise every entry keeps its id.
    func testEntriesAreRenamedOnlyWhereAHostWouldDrawThemOutOfOrder() {
        func menu(_ root: [Int32], start projects: [Int32]) -> MenuTree {
            MenuTree(root.map { TrayMenuItem(id: $0, label: "E\($0)") }
                     + [TrayMenuItem(id: 3, label: "Start", children: projects.map { TrayMenuItem(id: $0, label: "P\($0)") })])
        }
        var identity = MenuIdentity()
        let first = identity.hostView(of: menu([1, 2, 4], start: [10, 11, 12]))
        XCTAssertEqual(first.nodes[0]?.children, [1, 2, 4, 3], "the owner's ids as long as nothing moved")
        // Pause (2) becomes Resume (5) in its place; then an Undo line (6) comes: drawn in order as they are.
        XCTAssertEqual(identity.hostView(of: menu([1, 5, 4], start: [10, 11, 12])).nodes[0]?.children, [1, 5, 4, 3])
        let second = identity.hostView(of: menu([1, 5, 4, 6], start: [10, 11, 12]))
        XCTAssertEqual(second.nodes[0]?.children, [1, 5, 4, 6, 3])
        XCTAssertEqual(second.nodes[3]?.children, [10, 11, 12])
        XCTAssertFalse(MenuIdentity.drawnInOrder([1, 5, 4, 6, 3], showing: [1, 2, 4, 3]),
                       "both at once: the Undo line would be inserted while Pause is still there, one place too early")
        // The open project rises to the top: the submenu's entries are all new to hosts.
        let third = identity.hostView(of: menu([1, 5, 4, 6], start: [12, 10, 11]))
        let renamed = try! XCTUnwrap(third.nodes[3]?.children)
        XCTAssertEqual(renamed.count, 3)
        XCTAssertTrue(renamed.allSatisfy { $0 >= 1_500_000_000 }, "\(renamed)")
        XCTAssertEqual(renamed.map { third.nodes[$0]?.properties["label"] }, [.string("P12"), .string("P10"), .string("P11")])
        XCTAssertEqual(third.nodes[0]?.children, [1, 5, 4, 6, 3], "the rest of the menu keeps its ids")
        // Stays renamed; a new project at the end keeps its own id.
        let fourth = identity.hostView(of: menu([1, 5, 4, 6], start: [12, 10, 11, 13]))
        XCTAssertEqual(fourth.nodes[3]?.children, renamed + [13])
        // Removing an entry before the place of a new one would put the new one too early.
        let fifth = identity.hostView(of: menu([1, 4, 7, 6], start: [12, 10, 11, 13]))
        let root = try! XCTUnwrap(fifth.nodes[0]?.children)
        XCTAssertTrue(root.allSatisfy { $0 >= 1_500_000_000 }, "\(root)")
        XCTAssertEqual(root.map { fifth.nodes[$0]?.properties["label"] }, ["E1", "E4", "E7", "E6", "Start"].map { .string($0) })
        XCTAssertEqual(fifth.nodes[root[4]]?.children, renamed + [13], "the submenu's entries stay as they were")
        XCTAssertFalse(MenuIdentity.drawnInOrder([1, 4, 7, 6, 3], showing: [1, 5, 4, 6, 3]))
        XCTAssertTrue(MenuIdentity.drawnInOrder([1, 5, 4, 3], showing: [1, 2, 4, 3]))
        XCTAssertFalse(MenuIdentity.drawnInOrder([11, 10], showing: [10, 11]), "a known entry is never moved")
    }

    func testEntriesWithATakenOrInvalidIdAreLeftOut() {
        let tree = MenuTree([TrayMenuItem(id: 1, label: "A"), TrayMenuItem(id: 1, label: "again"), TrayMenuItem(id: 0, label: "zero"),
                             TrayMenuItem(id: 2, label: "B", children: [TrayMenuItem(id: 1, label: "nested again"), TrayMenuItem(id: 3, label: "C")])])
        XCTAssertEqual(tree.nodes[0]?.children, [1, 2])
        XCTAssertEqual(tree.nodes[2]?.children, [3])
        XCTAssertEqual(tree.properties(of: 1, names: [])?["label"], .string("A"))
    }

    func testPixmapsAreARGBInNetworkOrderInTheGivenColor() {
        for size in [16, 22, 32] {
            let pixmap = TrayPixmap.badge(size: size, color: "#2e7d32", glyph: .play)
            XCTAssertEqual(pixmap.width, Int32(size))
            XCTAssertEqual(pixmap.argb.count, size * size * 4)
            XCTAssertEqual(pixmap.argb[0], 0, "the corner is transparent")
            // A point on the disc left of the glyph: opaque, in the project's color (A R G B).
            let offset = ((size / 2) * size + size / 5) * 4
            XCTAssertEqual(Array(pixmap.argb[offset..<offset + 4]), [255, 0x2e, 0x7d, 0x32], "size \(size)")
        }
        let unreadable = TrayPixmap.badge(size: 16, color: "red", glyph: .none)
        XCTAssertEqual(Array(unreadable.argb[(8 * 16 + 8) * 4..<(8 * 16 + 8) * 4 + 4]), [255, 0x88, 0x88, 0x88])
    }

    func testTooltipMarkupEscaping() {
        XCTAssertEqual(TrayAppearance.markupEscaped("R&D <b>"), "R&amp;D &lt;b&gt;")
    }
}
