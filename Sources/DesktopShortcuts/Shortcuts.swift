/// The one way timectl and the window set, show and remove Time's keyboard shortcut, written
/// where the desktop keeps it (GNOME, KDE Plasma, Xfce); for sway, i3 and others, the exact line
/// to add. Knows nothing of GTK or D-Bus: it runs each desktop's own tool.
public struct Shortcuts {
    public var desktop: Desktop
    public var environment: [String: String]

    public init(desktop: Desktop? = nil, environment: [String: String] = currentEnvironment()) {
        self.environment = environment
        self.desktop = desktop ?? Desktop.detect(environment)
    }

    /// Whether this desktop's shortcuts are written for the person (else: `line` to add by hand).
    public var writes: Bool { [.gnome, .kde, .xfce].contains(desktop) }

    /// sway's and i3's configuration line (also what any other desktop can be told to run).
    public static func line(_ key: KeyCombo, _ action: ShortcutAction) -> String {
        "bindsym \(key.sway) exec \(action.command)"
    }

    public func configFile() -> String {
        desktop == .i3 ? "~/.config/i3/config" : "~/.config/sway/config"
    }

    /// Binds `key` to `action`: the desktop's shortcut replaced or added (others kept).
    public func set(_ key: KeyCombo, for action: ShortcutAction) throws {
        switch desktop {
        case .gnome: try GnomeShortcuts.set(key, for: action)
        case .xfce: try XfceShortcuts.set(key, for: action)
        case .kde: try KdeShortcuts.set(key, for: action, environment: environment)
        case .sway, .i3, .other:
            throw ShortcutError("\(desktop.label) keeps its key bindings in its own configuration; add this line to \(configFile()):\n\(Self.line(key, action))")
        }
    }

    /// The key bound to `action` as the desktop has it, read back with its own tool; nil when none.
    public func show(_ action: ShortcutAction) throws -> BoundShortcut? {
        switch desktop {
        case .gnome: return try GnomeShortcuts.show(action)
        case .xfce: return try XfceShortcuts.show(action)
        case .kde: return try KdeShortcuts.show(action)
        case .sway, .i3, .other: return nil
        }
    }

    /// Removes our binding of `action`; false when there was none.
    @discardableResult
    public func remove(_ action: ShortcutAction) throws -> Bool {
        switch desktop {
        case .gnome: return try GnomeShortcuts.remove(action)
        case .xfce: return try XfceShortcuts.remove(action)
        case .kde: return try KdeShortcuts.remove(action, environment: environment)
        case .sway, .i3, .other: return false
        }
    }
}
