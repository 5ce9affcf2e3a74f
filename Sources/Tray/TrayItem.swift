import CGLib
import DBusKit
import Glibc

/// A tray icon on every panel that speaks StatusNotifierItem (KDE, XFCE, Cinnamon, waybar,
/// GNOME with AppIndicator): the item at `/StatusNotifierItem`, its menu over
/// `com.canonical.dbusmenu` at `/MenuBar`, and its registration with the watcher, again whenever a
/// watcher appears or restarts, and again when no host has read the item a few seconds after it
/// registered, or the watcher drops it while it is still there (a host can lose an item that
/// registers at the instant it starts: GNOME's AppIndicator then fails to set up its proxy and
/// never reads it, or destroys it). Knows an icon, a tooltip, a label and a menu; nothing else.
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
    private let droppedRule = "type='signal',interface='\(TrayItem.watcherName)',member='StatusNotifierItemUnregistered'"
    /// The unique name of the watcher we registered with ("" while there is none).
    private var watcherOwner = ""

    /// The well-known name the item owns and registers: `org.kde.StatusNotifierItem-<pid>-1`.
    public let busName = "org.kde.StatusNotifierItem-\(getpid())-1"
    /// Whether a watcher (and so a host that shows the item) is on the bus and was told about us.
    public private(set) var hostPresent = false
    /// Seconds a host has to read the item after it registered before it registers again.
    public var readDeadlineSeconds: UInt32 = 3
    /// Registrations with one watcher before the item stops trying (a watcher with no host
    /// behind it never reads; the item then waits for the next watcher).
    public static let registrationAttempts = 5
    /// Called when the item registers again because no host read it or the watcher dropped it
    /// (the attempt, from 2).
    public var onUnreadRegistration: ((Int) -> Void)?
    private var readSinceRegistration = false
    private var registrations = 0
    private var readDeadline: guint = 0
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

    /// A click on a menu's root about to open: the owner may update the menu (see `MenuExporter`).
    public var onMenuAboutToShow: (() -> Void)? {
        get { menu.aboutToShow }
        set { menu.aboutToShow = newValue }
    }

    /// - Parameter iconThemePath: the folder holding the icons `appearance` names (an icon theme
    ///   folder such as `PREFIX/share/icons`) when it is not one of the system's; "" otherwise.
    public init(id: String, appearance: TrayAppearance, menu items: [TrayMenuItem], iconThemePath: String = "") {
        item = StatusNotifierObject(path: Self.itemPath, id: id, menuPath: Self.menuPath, appearance: appearance,
                                    iconThemePath: iconThemePath)
        menu = MenuExporter(path: Self.menuPath, iconThemePath: iconThemePath)
        menu.update(items)
        item.onRead = { [unowned self] in self.wasRead() }
    }

    deinit { cancelReadDeadline() }

    /// Exports both objects on `connection`, owns the item's name and registers with the watcher
    /// if one is there (none is normal: nothing is logged, the item waits for one to appear).
    public func attach(to connection: BusConnection) throws {
        self.connection = connection
        try item.export(on: connection)
        try menu.export(on: connection)
        try connection.requestName(busName, flags: [.doNotQueue])
        try connection.addMatch(watcherRule)
        try connection.addMatch(droppedRule)
        signalHandler = connection.onSignal { [weak self] message in self?.received(message) }
        if try connection.nameHasOwner(Self.watcherName) {
            watcherOwner = (try? connection.getNameOwner(Self.watcherName)) ?? ""
            register()
        }
    }

    /// Unexports everything and lets go of the name.
    public func detach() {
        cancelReadDeadline()
        guard let connection else { return }
        if let signalHandler { connection.removeSignalHandler(signalHandler) }
        signalHandler = nil
        if connection.isConnected {
            try? connection.removeMatch(watcherRule)
            try? connection.removeMatch(droppedRule)
            _ = try? connection.releaseName(busName)
        }
        connection.unexport(path: Self.itemPath)
        connection.unexport(path: Self.menuPath)
        self.connection = nil
        setHostPresent(false)
    }

    public var appearance: TrayAppearance { item.appearance }
    /// The `IconThemePath` the item announces ("" = none).
    public var iconThemePath: String { item.iconThemePath }

    public func update(appearance: TrayAppearance) { item.update(appearance) }

    public func update(menu items: [TrayMenuItem]) { menu.update(items) }

    /// Asks the panel to open the menu at item `id` (a submenu opens its list), where it can.
    public func requestMenuOpening(at id: Int32) { menu.requestOpening(id) }

    /// The menu's layout revision (rises with each structural change).
    public var menuRevision: UInt32 { menu.revision }

    private func received(_ message: Message) {
        if message.isSignal(interface: Self.watcherName, member: "StatusNotifierItemUnregistered") {
            return dropped(message)
        }
        guard message.isSignal(interface: "org.freedesktop.DBus", member: "NameOwnerChanged"),
              message.sender == "org.freedesktop.DBus",
              let arguments = try? message.arguments(), arguments.count == 3,
              arguments[0].stringValue == Self.watcherName else { return }
        watcherOwner = arguments[2].stringValue ?? ""
        if !watcherOwner.isEmpty {
            registrations = 0
            register()
        } else {
            cancelReadDeadline()
            setHostPresent(false)
        }
    }

    /// The watcher says it no longer has us (KDE names the item `service/path`, GNOME `service`):
    /// while we are here, that is a host that lost us; ask again, within the same bounded tries.
    private func dropped(_ message: Message) {
        guard !watcherOwner.isEmpty, message.sender == watcherOwner, connection != nil,
              let name = (try? message.arguments())?.first?.stringValue,
              name == busName || name.hasPrefix(busName + "/"),
              registrations < Self.registrationAttempts else { return }
        onUnreadRegistration?(registrations + 1)
        register()
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
        registrations += 1
        readSinceRegistration = false
        armReadDeadline()
        setHostPresent(true)
    }

    // MARK: A registration no host read

    private func wasRead() {
        readSinceRegistration = true
        cancelReadDeadline()
    }

    private func armReadDeadline() {
        cancelReadDeadline()
        guard registrations < Self.registrationAttempts else { return }
        readDeadline = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, readDeadlineSeconds, trayReadDeadlinePassed,
                                                  Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    private func cancelReadDeadline() {
        if readDeadline != 0 { g_source_remove(readDeadline); readDeadline = 0 }
    }

    fileprivate func readDeadlinePassed() {
        readDeadline = 0
        guard !readSinceRegistration, hostPresent, connection != nil else { return }
        onUnreadRegistration?(registrations + 1)
        register()
    }

    private func setHostPresent(_ present: Bool) {
        guard present != hostPresent else { return }
        hostPresent = present
        onHostChange?(present)
    }
}

private func trayReadDeadlinePassed(_ data: UnsafeMutableRawPointer?) -> gboolean {
    Unmanaged<TrayItem>.fromOpaque(data!).takeUnretainedValue().readDeadlinePassed()
    return 0 // G_SOURCE_REMOVE: a new registration arms a new deadline
}
