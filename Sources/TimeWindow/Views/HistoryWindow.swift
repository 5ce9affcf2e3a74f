import CGtk
import DBusCore
import GtkKit
import TimeClient

/// History (main menu): the agent's `History`, newest first, each step with its time, the undone
/// ones marked; Undo and Redo in the header. It follows the agent like every view: a new step, an
/// undo or a redo anywhere (timectl, the tray, another window) shows at once.
final class HistoryWindow {
    let window = Widget(gtk_window_new())
    private let context: WindowContext
    private let signals = SignalBag()
    private let undo = Make.button("Undo")
    private let redo = Make.button("Redo")
    private let list = Make.listBox()
    private let empty = Make.label("No changes yet. Each change you make is listed here, newest first, and can be undone.",
                                   style: "dim-label", wrap: true)
    private var shown: HistoryListModel?
    private var buttons = HistoryModel(canUndo: "", history: [])
    /// Runs when the window closes (the main window lets go of it).
    var onClose: (() -> Void)?

    init(context: WindowContext) {
        self.context = context
        let gtkWindow: UnsafeMutablePointer<GtkWindow> = window.typed()
        gtk_window_set_title(gtkWindow, "History")
        gtk_window_set_transient_for(gtkWindow, context.window)
        gtk_window_set_default_size(gtkWindow, 520, 560)
        gtk_window_set_hide_on_close(gtkWindow, 0)
        let header = Widget(adw_header_bar_new())
        adw_header_bar_pack_start(header.opaque, undo.raw)
        adw_header_bar_pack_start(header.opaque, redo.raw)
        let content = Make.scrolled(Make.box(true, spacing: 12, [empty, list]).margins(18))
        withExtendedLifetime(header) { gtk_window_set_titlebar(gtkWindow, header.raw) }
        withExtendedLifetime(content) { gtk_window_set_child(gtkWindow, content.raw) }
        let controller = gtk_shortcut_controller_new()
        if let controller, let trigger = gtk_shortcut_trigger_parse_string("Escape"), let action = gtk_named_action_new("window.close") {
            gtk_shortcut_controller_add_shortcut(OpaquePointer(UnsafeMutableRawPointer(controller)), gtk_shortcut_new(trigger, action))
            gtk_widget_add_controller(window.raw, controller)
        }
        signals.clicked(undo) { [weak self] in self?.perform("Undo") }
        signals.clicked(redo) { [weak self] in self?.perform("Redo") }
        signals.onBool(window.object, "close-request") { [weak self] in self?.onClose?(); return false }
        reload()
    }

    func present() { gtk_window_present(window.typed()) }

    /// The agent changed: a new step, an undo or a redo shows (they all move `CanUndo` or the data).
    func agentChanged(_ keys: Set<String>) {
        if keys.isEmpty || keys.contains("CanUndo") || keys.contains("DataRevision") || keys.count > 10 { reload() }
    }

    func reload() {
        guard context.link.status == .connected else { return update() }
        context.link.call(HistoryModel.historyRequest) { [weak self] result in
            guard let self, case .success(let reply) = result else { return }
            let steps = reply.first?.arrayValue?.compactMap(\.variantDictionary) ?? []
            self.buttons = HistoryModel(canUndo: self.context.link.properties.canUndo, history: steps)
            self.show(HistoryListModel(steps))
        }
    }

    private func show(_ model: HistoryListModel) {
        update()
        guard model != shown else { return }
        shown = model
        list.removeAllRows()
        let now = context.now
        for step in model.steps {
            let row = Prefs.row(title: step.description, subtitle: HistoryListModel.line(step, now: now))
            if step.undone { row.style("dim-label") }
            list.appendRow(row)
        }
        list.isVisible = !model.isEmpty
        empty.isVisible = model.isEmpty
    }

    private func update() {
        undo.isSensitive = context.canChange && !buttons.undo.isEmpty
        redo.isSensitive = context.canChange && !buttons.redo.isEmpty
        undo.tooltip(buttons.undo.isEmpty ? "Nothing to undo" : "Undo: \(buttons.undo)")
        redo.tooltip(buttons.redo.isEmpty ? "Nothing to redo" : "Redo: \(buttons.redo)")
    }

    private func perform(_ member: String) {
        guard context.canChange else { return }
        context.send(AgentRequest(member), failed: nil) { _ in }
    }
}
