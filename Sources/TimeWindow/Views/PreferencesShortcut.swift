import CGtk
import DesktopShortcuts
import GtkKit

/// Preferences' `Keyboard shortcut` row: the key that toggles the timer, as the desktop has it
/// (read back with its own tool), set in a dialog that catches the keys pressed (or takes them
/// typed, for whoever cannot press a chord), written where the desktop keeps it; for sway, i3 and
/// others the line to add, with a Copy button. The same code as `timectl shortcut`.
final class ShortcutPreferences {
    let row = Prefs.row(title: "Keyboard shortcut")
    private let shortcuts = Shortcuts()
    private let signals = SignalBag()
    private let button = Make.button("Set…").accessibleName("Keyboard shortcut")
    private let remove = Make.iconButton("edit-clear-symbolic", name: "Remove the shortcut").style("flat")
    private var dialog: ShortcutDialog?

    init() {
        for widget in [remove, button] {
            gtk_widget_set_valign(widget.raw, GTK_ALIGN_CENTER)
            row.addSuffix(widget)
        }
        signals.clicked(button) { [weak self] in self?.openDialog() }
        signals.clicked(remove) { [weak self] in self?.removeShortcut() }
        row.subtitle = "Toggle the timer from anywhere (\(shortcuts.desktop.label))."
        remove.isVisible = false
    }

    /// Reads what the desktop has (its tools run: called once the window shows, not while building it).
    func refresh() {
        guard shortcuts.writes else {
            row.subtitle = "\(shortcuts.desktop.label) keeps key bindings in \(shortcuts.configFile()): choose a key for the line to add."
            return
        }
        do {
            let bound = try shortcuts.show(.toggle)
            button.buttonLabel = bound?.key.label ?? "Set…"
            button.accessibleName("Keyboard shortcut")
            remove.isVisible = bound != nil
            row.subtitle = bound.map { "\($0.key.label) toggles the timer (in \($0.place))." }
                ?? "None. Choose a key that toggles the timer from anywhere."
        } catch let error as ShortcutError {
            row.subtitle = error.message
        } catch {
            row.subtitle = "\(error)"
        }
    }

    private func openDialog() {
        let made = ShortcutDialog(parent: row.window, shortcuts: shortcuts) { [weak self] in self?.refresh() }
        made.onClose = { [weak self] in self?.dialog = nil }
        dialog = made
        made.present()
    }

    private func removeShortcut() {
        do {
            try shortcuts.remove(.toggle)
        } catch {
            row.subtitle = "\(error)"
            return
        }
        refresh()
    }
}

/// The capture dialog: "press the keys"; Escape cancels; the key typed in `Key` and Set do the same.
private final class ShortcutDialog {
    private let dialog: DialogWindow
    private let shortcuts: Shortcuts
    private let signals = SignalBag()
    private let prompt = Make.label("Press the keys that should toggle the timer, for example Super+T. Escape cancels.", wrap: true)
    private let typed = Make.entry(name: "Key", hint: "or type it: Super+T")
    private let set = Make.button("Set", style: "suggested-action")
    private let result = Make.label("", wrap: true)
    private let copy = Make.button("Copy")
    private var capture: KeyCapture?
    private var line = ""
    private let done: () -> Void
    var onClose: (() -> Void)?

    init(parent: UnsafeMutablePointer<GtkWindow>?, shortcuts: Shortcuts, done: @escaping () -> Void) {
        self.shortcuts = shortcuts
        self.done = done
        gtk_label_set_selectable(result.opaque, 1)
        let entryRow = Make.box(false, spacing: 6, [typed.expand(horizontally: true), set])
        let content = Make.box(true, spacing: 12, [prompt, entryRow, result, copy]).margins(18)
        dialog = DialogWindow(title: "Keyboard Shortcut", parent: parent, content: content)
        result.isVisible = false
        copy.isVisible = false
        capture = KeyCapture(on: dialog.window) { [weak self] accelerator in self?.pressed(accelerator) ?? false }
        signals.clicked(set) { [weak self] in self?.apply(self?.typed.editableText ?? "") }
        signals.activated(typed) { [weak self] in self?.apply(self?.typed.editableText ?? "") }
        signals.clicked(copy) { [weak self] in
            guard let self else { return }
            Clipboard.copy(self.line)
            self.copy.buttonLabel = "Copied"
        }
        dialog.onClose { [weak self] in self?.onClose?() }
    }

    func present() { dialog.present() }

    /// A key pressed in the dialog (not while typing in `Key`, which keeps its keys).
    private func pressed(_ accelerator: String) -> Bool {
        if gtk_widget_has_focus(typed.raw) != 0 || gtk_widget_is_focus(typed.raw) != 0 { return false }
        if accelerator == "Escape" { dialog.close(); return true }
        guard let key = KeyCombo(accelerator), !key.modifiers.isEmpty || key.key.hasPrefix("F") else { return false }
        apply(accelerator)
        return true
    }

    private func apply(_ text: String) {
        guard let key = KeyCombo(text) else {
            return say("\"\(text)\" is not a key: write it as Super+T or Ctrl+Alt+F9.")
        }
        guard !key.modifiers.isEmpty || key.key.hasPrefix("F") else {
            return say("\(key.label) alone would be taken from every program: add Super, Ctrl or Alt.")
        }
        guard shortcuts.writes else {
            line = Shortcuts.line(key, .toggle)
            copy.isVisible = true
            return say("Add this line to \(shortcuts.configFile()) and reload it:\n\(line)")
        }
        do {
            try shortcuts.set(key, for: .toggle)
            done()
            dialog.close()
        } catch {
            say("\(error)")
        }
    }

    private func say(_ text: String) {
        result.text = text
        result.isVisible = true
    }
}
