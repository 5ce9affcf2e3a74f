import CGtk
import DBusCore
import GtkKit
import TimeClient

/// Edits a completed session (project, start, end or duration, note) or adds time by hand,
/// reading times and durations as timectl does. Bad input: a message in the dialog, no call.
final class SessionDialog {
    private let context: WindowContext
    private let session: SessionRecord?
    private let day: Int64
    private let form = Form()
    private let dialog: DialogWindow
    private let signals = SignalBag()
    private let project = Make.dropDown(name: "Project")
    private let start, end, duration, note: Widget
    private let projects: [Project]
    private var selfReference: SessionDialog?
    var onSaved: (() -> Void)?

    /// `session` nil: add time on `day` (to `projectID`, if given).
    init(context: WindowContext, session: SessionRecord?, day: Int64, projectID: UInt64 = 0) {
        self.context = context
        self.session = session
        self.day = day
        projects = context.pickableProjects(keeping: session?.projectID ?? projectID)
        form.field("Project", project)
        let chosen = session?.projectID ?? projectID
        project.setChoices(projects.map(\.name), selected: projects.firstIndex { $0.id == chosen } ?? 0)
        start = form.entry("Start", text: session.map { LocalTime.clockString($0.start) } ?? "",
                           hint: "9:15, yesterday 17:00, 2026-11-25 9:00")
        end = form.entry("End", text: session.map { LocalTime.clockString($0.end) } ?? "", hint: "17:30 (or a duration below)")
        duration = form.entry("Duration", hint: "1h30m, 1:30, 90m (or an end above)")
        note = form.entry("Note", text: session?.note ?? "")
        dialog = DialogWindow(title: session == nil ? "Add Time" : "Edit Session", parent: context.window, content: form.root)
        signals.clicked(form.cancel) { [weak self] in self?.finish() }
        signals.clicked(form.save) { [weak self] in self?.save() }
        for entry in [start, end, duration, note] { signals.activated(entry) { [weak self] in self?.save() } }
        // Typing a duration means the end follows from it.
        signals.on(duration.object, "changed") { [weak self] in
            guard let self, !self.duration.editableText.isEmpty else { return }
            self.end.editableText = ""
        }
        dialog.onClose { [weak self] in self?.selfReference = nil }
    }

    func present() {
        selfReference = self
        dialog.present()
        (session == nil ? start : end).grabFocus()
    }

    private func save() {
        let index = project.selectedIndex
        let typed = SessionForm(projectID: index >= 0 && index < projects.count ? projects[index].id : 0,
                                start: start.editableText, end: end.editableText,
                                duration: duration.editableText, note: note.editableText)
        let request: AgentRequest?
        do {
            if let session {
                request = try typed.edit(session, now: context.now)
            } else {
                request = try typed.add(day: day, now: context.now)
            }
        } catch let invalid as SessionForm.Invalid {
            return form.showError(invalid.message)
        } catch {
            return form.showError("\(error)")
        }
        guard let request else { return finish() }
        form.save.isSensitive = false
        context.send(request, failed: { [weak self] error in
            self?.form.save.isSensitive = true
            self?.form.showError(error.message)
        }) { [weak self] _ in
            self?.onSaved?()
            self?.finish()
        }
    }

    private func finish() {
        dialog.close()
        selfReference = nil
    }
}
