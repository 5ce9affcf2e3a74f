import CGtk

/// Catches the keys pressed in a widget (a shortcut-capture dialog): each press with a real key
/// (not a modifier alone) comes as GTK's accelerator name (`<Super>t`), with the modifiers that
/// matter for shortcuts only. The handler answers whether it took the press.
public final class KeyCapture {
    private let handler: (String) -> Bool
    private var controller: OpaquePointer?
    private var signal: gulong = 0

    public init(on widget: Widget, _ handler: @escaping (String) -> Bool) {
        self.handler = handler
        guard let made = gtk_event_controller_key_new() else { return }
        controller = made
        gtk_event_controller_set_propagation_phase(made, GTK_PHASE_CAPTURE)
        gtk_widget_add_controller(widget.raw, made)  // the widget owns the controller
        signal = g_signal_connect_data(UnsafeMutableRawPointer(made), "key-pressed", unsafeBitCast(keyPressed, to: GCallback.self),
                                       Unmanaged.passUnretained(self).toOpaque(), nil, GConnectFlags(rawValue: 0))
    }

    deinit {
        if let controller, signal != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(controller), signal) }
    }

    fileprivate func pressed(_ keyval: guint, _ state: GdkModifierType) -> Bool {
        let modifiers = GdkModifierType(rawValue: state.rawValue & gtk_accelerator_get_default_mod_mask().rawValue)
        // A modifier pressed alone is the start of a chord, not a key.
        guard gtk_accelerator_valid(keyval, modifiers) != 0 || keyval == 0xff1b /* Escape */,
              let name = gtk_accelerator_name(keyval, modifiers) else { return false }
        defer { g_free(name) }
        return handler(String(cString: name))
    }
}

private let keyPressed: @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean = {
    _, keyval, _, state, data in
    guard let data else { return 0 }
    return Unmanaged<KeyCapture>.fromOpaque(data).takeUnretainedValue().pressed(keyval, state) ? 1 : 0
}

/// The clipboard of the display: text copied for the person to paste elsewhere.
public enum Clipboard {
    public static func copy(_ text: String) {
        guard let display = gdk_display_get_default(), let clipboard = gdk_display_get_clipboard(display) else { return }
        gdk_clipboard_set_text(clipboard, text)
    }
}
