import CGtk

/// The signal connections of one view: each closure lives until the bag goes, and then every
/// handler is disconnected (and its object given back), so no callback outlives its view.
public final class SignalBag {
    private var connections: [(object: UnsafeMutableRawPointer, id: gulong)] = []

    public init() {}

    deinit {
        for connection in connections {
            if g_signal_handler_is_connected(connection.object, connection.id) != 0 {
                g_signal_handler_disconnect(connection.object, connection.id)
            }
            g_object_unref(connection.object)
        }
    }

    /// A signal whose handler takes no argument besides the emitter (`clicked`, `activate`).
    public func on(_ object: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping () -> Void) {
        let box = Unmanaged.passRetained(SignalHandler { _ in handler() }).toOpaque()
        add(object, g_signal_connect_data(object, signal, unsafeBitCast(noArgument, to: GCallback.self),
                                          box, releaseHandler, GConnectFlags(rawValue: 0)))
    }

    /// A signal whose handler takes one pointer argument (`row-activated`, `notify::…`,
    /// `response`, an action's `activate`).
    public func on(_ object: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping (UnsafeMutableRawPointer?) -> Void) {
        let box = Unmanaged.passRetained(SignalHandler(handler)).toOpaque()
        add(object, g_signal_connect_data(object, signal, unsafeBitCast(oneArgument, to: GCallback.self),
                                          box, releaseHandler, GConnectFlags(rawValue: 0)))
    }

    /// A signal answered with true or false (`close-request`: true keeps the window).
    public func onBool(_ object: UnsafeMutableRawPointer, _ signal: String, _ handler: @escaping () -> Bool) {
        let box = Unmanaged.passRetained(BoolSignalHandler(handler)).toOpaque()
        add(object, g_signal_connect_data(object, signal, unsafeBitCast(boolAnswer, to: GCallback.self),
                                          box, releaseBoolHandler, GConnectFlags(rawValue: 0)))
    }

    public func on(_ widget: Widget, _ signal: String, _ handler: @escaping () -> Void) {
        on(widget.object, signal, handler)
    }

    /// A property of `object` changed (`notify::NAME`, whose handler also gets the GParamSpec).
    public func notify(_ object: UnsafeMutableRawPointer, _ property: String, _ handler: @escaping () -> Void) {
        on(object, "notify::" + property) { (_: UnsafeMutableRawPointer?) in handler() }
    }

    /// A button pressed (by pointer, keyboard or an assistive technology's action).
    public func clicked(_ button: Widget, _ handler: @escaping () -> Void) { on(button.object, "clicked", handler) }

    /// Enter pressed in an entry.
    public func activated(_ entry: Widget, _ handler: @escaping () -> Void) { on(entry.object, "activate", handler) }

    private func add(_ object: UnsafeMutableRawPointer, _ id: gulong) {
        g_object_ref(object)
        connections.append((object, id))
    }
}

private final class SignalHandler {
    let run: (UnsafeMutableRawPointer?) -> Void
    init(_ run: @escaping (UnsafeMutableRawPointer?) -> Void) { self.run = run }
}

private final class BoolSignalHandler {
    let run: () -> Bool
    init(_ run: @escaping () -> Bool) { self.run = run }
}

private let noArgument: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
    guard let data else { return }
    Unmanaged<SignalHandler>.fromOpaque(data).takeUnretainedValue().run(nil)
}

private let oneArgument: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, argument, data in
    guard let data else { return }
    Unmanaged<SignalHandler>.fromOpaque(data).takeUnretainedValue().run(argument)
}

private let boolAnswer: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
    guard let data else { return 0 }
    return Unmanaged<BoolSignalHandler>.fromOpaque(data).takeUnretainedValue().run() ? 1 : 0
}

private let releaseHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
    guard let data else { return }
    Unmanaged<SignalHandler>.fromOpaque(data).release()
}

private let releaseBoolHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<GClosure>?) -> Void = { data, _ in
    guard let data else { return }
    Unmanaged<BoolSignalHandler>.fromOpaque(data).release()
}

/// Actions a widget offers under a prefix (`row.activate`): what keyboard shortcuts and
/// assistive technologies can invoke on it (GTK 4.8 gives a list row no action of its own).
public final class WidgetActions {
    private let group: UnsafeMutablePointer<GSimpleActionGroup>
    private let signals = SignalBag()

    public init(on widget: Widget, prefix: String) {
        guard let made = g_simple_action_group_new() else { fatalError("no action group: out of memory") }
        group = made
        gtk_widget_insert_action_group(widget.raw, prefix, OpaquePointer(UnsafeMutableRawPointer(made)))
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(group)) }

    public func add(_ name: String, _ handler: @escaping () -> Void) {
        guard let action = g_simple_action_new(name, nil) else { return }
        signals.on(UnsafeMutableRawPointer(action), "activate") { (_: UnsafeMutableRawPointer?) in handler() }
        g_action_map_add_action(OpaquePointer(UnsafeMutableRawPointer(group)), action)
        g_object_unref(UnsafeMutableRawPointer(action))
    }
}
