import CGtk

/// An `AdwApplication`: one instance per session (GApplication's bus name), D-Bus activatable,
/// with window actions and their keyboard shortcuts.
public final class Application {
    public let raw: UnsafeMutablePointer<AdwApplication>
    private let signals = SignalBag()
    private var actions: [UnsafeMutableRawPointer] = []

    public init(id: String) {
        guard let made = adw_application_new(id, G_APPLICATION_DEFAULT_FLAGS) else { fatalError("no application") }
        raw = made
    }

    deinit {
        for action in actions { g_object_unref(action) }
        g_object_unref(UnsafeMutableRawPointer(raw))
    }

    public var object: UnsafeMutableRawPointer { UnsafeMutableRawPointer(raw) }
    public var gtkApplication: UnsafeMutablePointer<GtkApplication> {
        UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GtkApplication.self)
    }

    /// Runs `handler` on every activation (the first start, the menu entry, the tray's Open Time).
    public func onActivate(_ handler: @escaping () -> Void) { signals.on(object, "activate", handler) }

    /// An application action `app.NAME`, with keyboard shortcuts (`<Control>z`).
    public func addAction(_ name: String, shortcuts: [String] = [], _ handler: @escaping () -> Void) {
        guard let action = g_simple_action_new(name, nil) else { return }
        actions.append(UnsafeMutableRawPointer(action))
        signals.on(UnsafeMutableRawPointer(action), "activate") { (_: UnsafeMutableRawPointer?) in handler() }
        g_action_map_add_action(OpaquePointer(raw), action)
        if !shortcuts.isEmpty {
            var pointers = shortcuts.map { UnsafePointer(strdup($0)) } + [nil]
            gtk_application_set_accels_for_action(gtkApplication, "app." + name, &pointers)
            for pointer in pointers { free(UnsafeMutableRawPointer(mutating: pointer)) }
        }
    }

    /// Turns an action on or off (its buttons and shortcuts follow).
    public func setEnabled(_ name: String, _ enabled: Bool) {
        guard let action = g_action_map_lookup_action(OpaquePointer(raw), name) else { return }
        g_simple_action_set_enabled(action, enabled ? 1 : 0)
    }

    /// Runs the main loop until the last window closes; returns the exit status.
    public func run(arguments: [String]) -> Int32 {
        var pointers = arguments.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        return g_application_run(cast(object), Int32(pointers.count), &pointers)
    }
}
