import CGtk

/// A toast overlay: short messages at the bottom of the window, with one optional button.
public final class Toasts {
    public let overlay: Widget
    private let signals = SignalBag()

    public init(content: Widget) {
        overlay = Widget(adw_toast_overlay_new())
        adw_toast_overlay_set_child(overlay.opaque, content.raw)
    }

    /// Shows `title`; with `button`, a button of that label runs `action` while the toast shows.
    public func show(_ title: String, button: String? = nil, seconds: UInt32 = 8, action: (() -> Void)? = nil) {
        guard let toast = adw_toast_new(title) else { return }
        adw_toast_set_timeout(toast, seconds)
        if let button, let action {
            adw_toast_set_button_label(toast, button)
            signals.on(UnsafeMutableRawPointer(toast), "button-clicked", action)
        }
        adw_toast_overlay_add_toast(overlay.opaque, toast)
    }
}

/// A dialog window of our own (a form): modal over its parent, closed with Escape.
public final class DialogWindow {
    public let window: Widget
    private let signals = SignalBag()

    public init(title: String, parent: UnsafeMutablePointer<GtkWindow>?, content: Widget, width: Int32 = 420) {
        window = Widget(gtk_window_new())
        let gtkWindow: UnsafeMutablePointer<GtkWindow> = window.typed()
        gtk_window_set_title(gtkWindow, title)
        gtk_window_set_modal(gtkWindow, 1)
        gtk_window_set_transient_for(gtkWindow, parent)
        gtk_window_set_default_size(gtkWindow, width, -1)
        gtk_window_set_hide_on_close(gtkWindow, 0)
        let header = Widget(adw_header_bar_new())
        gtk_window_set_titlebar(gtkWindow, header.raw)
        gtk_window_set_child(gtkWindow, content.raw)
        // Escape closes, as in every GNOME dialog.
        let controller = gtk_shortcut_controller_new()
        if let trigger = gtk_shortcut_trigger_parse_string("Escape"), let action = gtk_named_action_new("window.close") {
            if let controller { gtk_shortcut_controller_add_shortcut(OpaquePointer(UnsafeMutableRawPointer(controller)), gtk_shortcut_new(trigger, action)) }
        }
        if let controller { gtk_widget_add_controller(window.raw, controller) }
    }

    public func present() { gtk_window_present(window.typed()) }

    public func close() { gtk_window_destroy(window.typed()) }

    public func onClose(_ handler: @escaping () -> Void) {
        signals.onBool(window.object, "close-request") { handler(); return false }
    }
}

/// An `AdwMessageDialog`: a question with named answers.
public enum Ask {
    /// Shows `heading` and `body` with `answers` (id, label); `destructive` marks one in red.
    /// `done` gets the id chosen (`cancel` when closed with Escape).
    public static func question(parent: UnsafeMutablePointer<GtkWindow>?, heading: String, body: String,
                                answers: [(id: String, label: String)], destructive: String? = nil,
                                done: @escaping (String) -> Void) {
        guard let made = adw_message_dialog_new(parent, heading, body) else { return }
        let dialog: UnsafeMutablePointer<AdwMessageDialog> = cast(UnsafeMutableRawPointer(made))
        for answer in answers { adw_message_dialog_add_response(dialog, answer.id, answer.label) }
        if let destructive { adw_message_dialog_set_response_appearance(dialog, destructive, ADW_RESPONSE_DESTRUCTIVE) }
        adw_message_dialog_set_close_response(dialog, "cancel")
        let holder = DialogHolder(done)
        holder.signals.on(UnsafeMutableRawPointer(made), "response") { (response: UnsafeMutableRawPointer?) in
            let id = response.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "cancel"
            holder.finish(id)
        }
        holder.keepAliveUntilAnswered()
        gtk_window_present(cast(UnsafeMutableRawPointer(made)))
    }
}

/// Keeps a dialog's handler alive until the dialog answers (GTK owns the dialog itself).
private final class DialogHolder {
    let signals = SignalBag()
    let done: (String) -> Void
    private var selfReference: DialogHolder?
    init(_ done: @escaping (String) -> Void) { self.done = done }
    func keepAliveUntilAnswered() { selfReference = self }
    func finish(_ answer: String) {
        done(answer)
        selfReference = nil
    }
}

/// The portal-friendly file chooser (GTK 4.8 has no GtkFileDialog).
public enum ChooseFile {
    /// Asks for a file to open (`save` false) or to write; `done` gets its path, or nil.
    public static func run(parent: UnsafeMutablePointer<GtkWindow>?, title: String, save: Bool,
                           suggestedName: String = "", done: @escaping (String?) -> Void) {
        run(parent: parent, title: title, action: save ? GTK_FILE_CHOOSER_ACTION_SAVE : GTK_FILE_CHOOSER_ACTION_OPEN,
            accept: save ? "_Save" : "_Open", suggestedName: suggestedName, done: done)
    }

    /// Asks for a folder (`select-folder`); `done` gets its path, or nil.
    public static func folder(parent: UnsafeMutablePointer<GtkWindow>?, title: String, done: @escaping (String?) -> Void) {
        run(parent: parent, title: title, action: GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, accept: "_Select", done: done)
    }

    private static func run(parent: UnsafeMutablePointer<GtkWindow>?, title: String, action: GtkFileChooserAction,
                            accept: String, suggestedName: String = "", done: @escaping (String?) -> Void) {
        let save = action == GTK_FILE_CHOOSER_ACTION_SAVE
        guard let chooser = gtk_file_chooser_native_new(title, parent, action, accept, "_Cancel") else { return done(nil) }
        let native: UnsafeMutablePointer<GtkNativeDialog> = cast(UnsafeMutableRawPointer(chooser))
        gtk_native_dialog_set_modal(native, 1)
        if save, !suggestedName.isEmpty { gtk_file_chooser_set_current_name(chooser, suggestedName) }
        let holder = DialogHolder { response in
            var path: String?
            if response == "accept", let file = gtk_file_chooser_get_file(chooser) {
                if let cPath = g_file_get_path(file) { path = String(cString: cPath); g_free(cPath) }
                g_object_unref(UnsafeMutableRawPointer(file))
            }
            g_object_unref(UnsafeMutableRawPointer(chooser))
            done(path)
        }
        holder.signals.on(UnsafeMutableRawPointer(chooser), "response") { (response: UnsafeMutableRawPointer?) in
            // GTK_RESPONSE_ACCEPT is -3; the argument is the int itself, passed as a pointer-sized value.
            holder.finish(Int(bitPattern: response) == -3 ? "accept" : "cancel")
        }
        holder.keepAliveUntilAnswered()
        gtk_native_dialog_show(native)
    }
}
