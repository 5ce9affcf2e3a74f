import DBusKit
import Glibc
import TextEscape

/// What the tray item shows. Plain values: the owner builds a new one and hands it over; only
/// what changed is announced.
public struct TrayAppearance: Equatable, Sendable {
    public var title: String
    public var iconName: String
    public var iconPixmaps: [TrayPixmap]
    public var attentionIconName: String
    /// Plain title of the tooltip.
    public var tooltipTitle: String
    /// The tooltip's body, as markup: escape names with `TrayAppearance.markupEscaped`.
    public var tooltipMarkup: String
    /// Text beside the icon (`XAyatanaLabel`: GNOME's AppIndicator extension draws it).
    public var label: String
    /// The widest text the label will have, so the host can reserve room.
    public var labelGuide: String
    /// What the icon shows, for screen readers (`IconAccessibleDesc`; GNOME's AppIndicator
    /// names the button with it, else with the title).
    public var iconDescription: String

    public init(title: String, iconName: String, iconPixmaps: [TrayPixmap] = [], attentionIconName: String = "",
                tooltipTitle: String = "", tooltipMarkup: String = "", label: String = "", labelGuide: String = "",
                iconDescription: String = "") {
        self.title = title
        self.iconName = iconName
        self.iconPixmaps = iconPixmaps
        self.attentionIconName = attentionIconName
        self.tooltipTitle = tooltipTitle
        self.tooltipMarkup = tooltipMarkup
        self.label = label
        self.labelGuide = labelGuide
        self.iconDescription = iconDescription
    }

    /// A name or a line for the tooltip's markup (TextEscape.markup: the one escaping every module shares).
    public static func markupEscaped(_ text: String) -> String { TextEscape.markup(text) }

    var pixmapValue: DBusValue {
        .array(elementSignature: "(iiay)", iconPixmaps.map { pixmap in
            .structure([.int32(pixmap.width), .int32(pixmap.height),
                        .array(elementSignature: "y", pixmap.argb.map { .byte($0) })])
        })
    }

    var toolTipValue: DBusValue {
        .structure([.string(iconName), pixmapValue, .string(tooltipTitle), .string(tooltipMarkup)])
    }
}

/// What a host asked the item to do.
public enum TrayActivation: Sendable, Equatable {
    /// A primary (left) click.
    case primary
    /// A middle click (`SecondaryActivate`, `XAyatanaSecondaryActivate`).
    case secondary
}

/// `org.kde.StatusNotifierItem` at one path.
final class StatusNotifierObject {
    static let interfaceName = "org.kde.StatusNotifierItem"

    let path: String
    let id: String
    let menuPath: String
    private(set) var appearance: TrayAppearance
    /// Called before a property is read (see `TrayItem.beforeRead`).
    var beforeRead: (() -> Void)?
    /// Called whenever a host reads any property: it has the item.
    var onRead: (() -> Void)?
    /// Where our icon names are found when they are not in the system's icon folders ("" = there).
    let iconThemePath: String
    private weak var connection: BusConnection?
    var onActivate: ((TrayActivation) -> Void)?

    init(path: String, id: String, menuPath: String, appearance: TrayAppearance, iconThemePath: String) {
        self.path = path
        self.id = id
        self.menuPath = menuPath
        self.appearance = appearance
        self.iconThemePath = iconThemePath
    }

    func export(on connection: BusConnection) throws {
        self.connection = connection
        try connection.export(object: ExportedObject(path: path, interfaces: [interface]))
    }

    /// Replaces the appearance; emits the SNI signal of each part that changed.
    func update(_ new: TrayAppearance) {
        let old = appearance
        appearance = new
        guard let connection, connection.isConnected else { return }
        func emit(_ name: String, _ arguments: [DBusValue] = []) {
            try? connection.emitSignal(path: path, interface: Self.interfaceName, name: name, arguments: arguments)
        }
        if new.title != old.title { emit("NewTitle") }
        // GNOME's AppIndicator re-reads IconAccessibleDesc on NewIcon too.
        if new.iconName != old.iconName || new.iconPixmaps != old.iconPixmaps || new.iconDescription != old.iconDescription {
            emit("NewIcon")
        }
        if new.attentionIconName != old.attentionIconName { emit("NewAttentionIcon") }
        if new.toolTipValue != old.toolTipValue { emit("NewToolTip") }
        if new.label != old.label || new.labelGuide != old.labelGuide {
            emit("XAyatanaNewLabel", [.string(new.label), .string(new.labelGuide)])
        }
    }

    private func activate(_ kind: TrayActivation, _ call: MethodCall) -> [DBusValue] {
        if let onActivate {
            let previous = call.afterReply
            call.afterReply = { previous?(); onActivate(kind) }
        }
        return []
    }

    private func constant(_ name: String, _ signature: String, _ value: DBusValue) -> Property {
        Property(name: name, signature: signature, emitsChange: .false) { [unowned self] in
            self.onRead?()
            return value
        }
    }

    private func live(_ name: String, _ signature: String, _ value: @escaping (TrayAppearance) -> DBusValue) -> Property {
        Property(name: name, signature: signature, emitsChange: .false) { [unowned self] in
            self.onRead?()
            self.beforeRead?()
            return value(self.appearance)
        }
    }

    /// GNOME's AppIndicator extension asks for the Id (and Menu) alone when the owner of our bus
    /// name changes in its eyes, after clearing what it held; its own refresh of them then fails
    /// (it compares the answer with the cleared value), and an item without them is never ready:
    /// no icon, label or menu. Telling both again in a PropertiesChanged, which its D-Bus proxy
    /// applies, makes it ready; for a host that still holds them it changes nothing.
    private func identity(_ property: Property) -> Property {
        var property = property
        property.afterGet = { [unowned self] in
            guard let connection = self.connection, connection.isConnected else { return }
            try? connection.emitPropertiesChanged(path: self.path, interface: Self.interfaceName,
                                                  changed: ["Id": .string(self.id), "Menu": .objectPath(self.menuPath)])
        }
        return property
    }

    var interface: Interface {
        Interface(name: Self.interfaceName, methods: [
            Method(name: "ContextMenu", inArgs: [Argument("x", "i"), Argument("y", "i")]) { _ in [] },
            Method(name: "Activate", inArgs: [Argument("x", "i"), Argument("y", "i")]) { [unowned self] call in
                self.activate(.primary, call)
            },
            Method(name: "SecondaryActivate", inArgs: [Argument("x", "i"), Argument("y", "i")]) { [unowned self] call in
                self.activate(.secondary, call)
            },
            Method(name: "XAyatanaSecondaryActivate", inArgs: [Argument("timestamp", "u")]) { [unowned self] call in
                self.activate(.secondary, call)
            },
            // Plasma 6 hands over an activation token before Activate; there is no window to raise.
            Method(name: "ProvideXdgActivationToken", inArgs: [Argument("token", "s")]) { _ in [] },
            // Scrolling means nothing for a timer: accepted (either orientation, any case) and ignored.
            Method(name: "Scroll", inArgs: [Argument("delta", "i"), Argument("orientation", "s")]) { _ in [] },
        ], properties: [
            constant("Category", "s", .string("ApplicationStatus")),
            identity(constant("Id", "s", .string(id))),
            live("Title", "s") { .string($0.title) },
            // Always Active: hosts hide a Passive item, and an idle timer must stay reachable.
            constant("Status", "s", .string("Active")),
            constant("WindowId", "i", .int32(0)),
            live("IconName", "s") { .string($0.iconName) },
            live("IconPixmap", "a(iiay)") { $0.pixmapValue },
            // Hosts add it to their icon search path (GNOME, KDE); empty when our icons are in
            // the system's folders, where every host looks anyway.
            constant("IconThemePath", "s", .string(iconThemePath)),
            constant("OverlayIconName", "s", .string("")),
            constant("OverlayIconPixmap", "a(iiay)", .array(elementSignature: "(iiay)", [])),
            live("AttentionIconName", "s") { .string($0.attentionIconName) },
            constant("AttentionIconPixmap", "a(iiay)", .array(elementSignature: "(iiay)", [])),
            live("IconAccessibleDesc", "s") { .string($0.iconDescription) },
            constant("AttentionAccessibleDesc", "s", .string("")),
            constant("AttentionMovieName", "s", .string("")),
            live("ToolTip", "(sa(iiay)ss)") { $0.toolTipValue },
            constant("ItemIsMenu", "b", .bool(false)),
            constant("Menu", "o", .objectPath(menuPath)),
            live("XAyatanaLabel", "s") { .string($0.label) },
            live("XAyatanaLabelGuide", "s") { .string($0.labelGuide) },
            constant("XAyatanaOrderingIndex", "u", .uint32(0)),
        ], signals: [
            Signal(name: "NewTitle"),
            Signal(name: "NewIcon"),
            Signal(name: "NewAttentionIcon"),
            Signal(name: "NewOverlayIcon"),
            Signal(name: "NewMenu"),
            Signal(name: "NewToolTip"),
            Signal(name: "NewStatus", args: [Argument("status", "s")]),
            Signal(name: "XAyatanaNewLabel", args: [Argument("label", "s"), Argument("guide", "s")]),
        ])
    }
}
