import CGtk
import DBusCore
import GtkKit
import TimeClient

/// Adds or edits a project: name, color, category (a new one is created), archived, hourly rate
/// and weekly target. The agent's refusal shows in the dialog, in its words; nothing typed is lost.
final class ProjectDialog {
    private let context: WindowContext
    private let existing: Project?
    private let form = Form()
    private let dialog: DialogWindow
    private let signals = SignalBag()
    private let name, color, category, rate, target: Widget
    /// Its caption is the form's label.
    private let archived = Make.check("")
    private var selfReference: ProjectDialog?

    init(context: WindowContext, editing existing: Project?) {
        self.context = context
        self.existing = existing
        let values = existing.map(ProjectForm.init) ?? ProjectForm(name: "", color: "", category: "", archived: false)
        name = form.entry("Name", text: values.name)
        color = form.entry("Color", text: values.color, hint: "#rrggbb, or empty for one from the palette")
        category = form.entry("Category", text: values.category,
                              hint: context.categories.isEmpty ? "None" : "None, or " + context.categories.prefix(3).joined(separator: ", "))
        rate = form.entry("Hourly rate", text: values.rate, hint: "e.g. 85.50 (none when empty)")
        target = form.entry("Weekly target", text: values.weeklyTarget, hint: "e.g. 20h (none when empty)")
        form.field("Archived", archived)
        archived.isActive = values.archived
        dialog = DialogWindow(title: existing == nil ? "New Project" : "Edit Project", parent: context.window, content: form.root)
        signals.clicked(form.cancel) { [weak self] in self?.finish() }
        signals.clicked(form.save) { [weak self] in self?.save() }
        for entry in [name, color, category, rate, target] { signals.activated(entry) { [weak self] in self?.save() } }
        dialog.onClose { [weak self] in self?.selfReference = nil }
    }

    func present() {
        selfReference = self
        dialog.present()
        name.grabFocus()
    }

    private func save() {
        let typed = ProjectForm(name: name.editableText, color: color.editableText, category: category.editableText,
                                archived: archived.isActive, rate: rate.editableText, weeklyTarget: target.editableText)
        let requests: [AgentRequest]
        do {
            requests = try typed.requests(existing: existing, categories: context.categories)
        } catch let invalid as SessionForm.Invalid {
            return form.showError(invalid.message)
        } catch {
            return form.showError("\(error)")
        }
        guard !requests.isEmpty else { return finish() }
        form.save.isSensitive = false
        context.sendInOrder(requests) { [weak self] error, reply in
            guard let self else { return }
            self.form.save.isSensitive = true
            if let error { return self.form.showError(error.message) }
            if self.existing == nil, let id = reply.first?.uint64Value, let more = typed.settingsAfterCreate(id: id) {
                self.context.send(more, failed: { [weak self] error in self?.form.showError(error.message) }) { [weak self] _ in
                    self?.finish()
                }
            } else {
                self.finish()
            }
        }
    }

    private func finish() {
        context.reloadProjects()
        dialog.close()
        selfReference = nil
    }
}
