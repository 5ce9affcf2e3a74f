import DBusKit
import Glibc

/// A tray icon on every panel that speaks StatusNotifierItem (KDE, XFCE, Cinnamon, waybar,
/// GNOME with AppIndicator): the item at `/StatusNotifierItem`, its menu over
/// `com.canonical.dbusmenu` at `/MenuBar`, and its registration with the watcher, again whenever a
/// watcher appears or restarts. Knows an icon, a tooltip, a label and a menu; nothing else.
public final class TrayItem {
    public static let watcherName = "org.kde.StatusNotifierWatcher"
    public static let watcherPath = "/StatusNotifierWatcher"
    public static let itemPath = "/StatusNotifierItem"
    public static let menuPath = "/MenuBar"

    private let item: StatusNotifierObject
    private let menu: MenuExporter
    private var connection: BusConnection?
    private var signalHandler: Int?
    private let watcherRule = "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(TrayItem.watcherName)'"

    /// The well-known name the item owns and registers: `org.kde.StatusNotifierItem-<pid>-1`.
    public let busName = "org.kde.StatusNotifierItem-\(getpid())-1"
    /// Whether a watcher (and so a host that shows the item) is on the bus and was told about us.
    public private(set) var hostPresent = false
    /// Called when `hostPresent` changes.
    public var onHostChange: ((Bool) -> Void)?
    /// Called before a host reads the item or its menu: a feeder that skips updates while no host
    /// is registered brings them up to date here (a caller may read without a watcher).
    public var beforeRead: (() -> Void)? {
        didSet { item.beforeRead = beforeRead; menu.beforeRead = beforeRead }
    }
    /// A click on the icon itself.
    public var onActivate: ((TrayActivation) -> Void)? {
        get { item.onActivate }
        set { item.onActivate = newValue }
    }

    public init(id: String, appearance: TrayAppearance, menu items: [TrayMenuItem]) {
        item = StatusNotifierObject(path: Self.itemPath, id: id, menuPath: Self.menuPath, appearance: appearance)
        menu = MenuExporter(path: Self.menuPath)
        menu.update(items)
    }

    /// Exports both objects on `connection`, owns the item's name and registers with the watcher
    /// if one is there (none is normal: nothing is logged, the item waits for one to appear).
    public func attach(to connection: BusConnection) throws {
        self.connection = connection
        try item.export(on: connection)
        try menu.export(on: connection)
        try connection.requestName(busName, flags: [.doNotQueue])
        try connection.addMatch(watcherRule)
        signalHandler = connection.onSignal { [weak self] message in self?.received(message) }
        if try connection.nameHasOwner(Self.watcherName) { register() }
    }

    /// Unexports everything and lets go of the name.
    public func detach() {
        guard let connection else { return }
        if let signalHandler { connection.removeSignalHandler(signalHandler) }
        signalHandler = nil
        if connection.isConnected {
            try? connection.removeMatch(watcherRule)
            _ = try? connection.releaseName(busName)
        }
        connection.unexport(path: Self.itemPath)
        connection.unexport(path: Self.menuPath)
        self.connection = nil
        setHostPresent(false)
    }

    public var appearance: TrayAppearance { item.appearance }

    public func update(appearance: TrayAppearance) { item.update(appearance) }

    public func update(menu items: [TrayMenuItem]) { menu.update(items) }

    /// Asks the panel to open the menu at item `id` (a submenu opens its list), where it can.
    public func requestMenuOpening(at id: Int32) { menu.requestOpening(id) }

    /// The menu's layout revision (rises with each structural change).
    public var menuRevision: UInt32 { menu.revision }

    private func received(_ message: Message) {
        guard message.isSignal(interface: "org.freedesktop.DBus", member: "NameOwnerChanged"),
              message.sender == "org.freedesktop.DBus",
              let arguments = try? message.arguments(), arguments.count == 3,
              arguments[0].stringValue == Self.watcherName else { return }
        if arguments[2].stringValue?.isEmpty == false {
            register()
        } else {
            setHostPresent(false)
        }
    }

    /// Tells the watcher about the item. The reply is not awaited: a hung panel must never stall
    /// the caller, and a watcher that refuses simply never calls back.
    private func register() {
        guard let connection,
              let message = try? Message(methodCall: Self.watcherName, path: Self.watcherPath,
                                         interface: Self.watcherName, member: "RegisterStatusNotifierItem") else { return }
        message.autoStart = false
        guard (try? message.append([.string(busName)])) != nil, (try? connection.send(message)) != nil else { return }
        connection.flush()
        setHostPresent(true)
    }

    private func setHostPresent(_ present: Bool) {
        guard present != hostPresent else { return }
        hostPresent = present
        onHostChange?(present)
    }
}
