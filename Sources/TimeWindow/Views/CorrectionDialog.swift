import CGtk
import DBusCore
import GtkKit
import TimeClient

/// "Started at", "Stop at", "Paused since" and "Start at": a time typed as people say it
/// (9:00, 10 minutes ago, -10m), the sentence of what will happen shown as it is typed, and the
/// call made only on the button. When the agent answers `Overlap`, its words are shown and the
/// button becomes "Shorten and …", which sends the same call with `adjust`.
final class CorrectionDialog {
    private let context: WindowContext
    private let model: CorrectionForm
    private let form = Form()
    private let dialog: DialogWindow
    private let signals = SignalBag()
    private let project = Make.dropDown(name: "Project")
    private let time: Widget
    private let preview = Make.label("", wrap: true)
    private let projects: [Project]
    /// The plan the agent answered `Overlap` to: the button now sends its adjusted call.
    private var shortening: CorrectionForm.Plan?
    private var selfReference: CorrectionDialog?

    /// `projectID`: the project preselected for Start at.
    init(context: WindowContext, model: CorrectionForm, projectID: UInt64 = 0) {
        self.context = context
        self.model = model
        let open = context.link.properties.project
        projects = model.kind == .startAt ? context.pickableProjects().filter { $0.name != open || projectID == $0.id } : []
        if model.kind == .startAt {
            form.field("Project", project)
            project.setChoices(projects.map(\.name), selected: projects.firstIndex { $0.id == projectID } ?? 0)
        }
        time = form.entry("Time", text: model.initialText, hint: CorrectionForm.hint)
        preview.align(GTK_ALIGN_START)
        form.line(preview)
        form.save.buttonLabel = model.action
        dialog = DialogWindow(title: model.title, parent: context.window, content: form.root)
        signals.clicked(form.cancel) { [weak self] in self?.finish() }
        signals.clicked(form.save) { [weak self] in self?.send() }
        signals.activated(time) { [weak self] in self?.send() }
        signals.on(time.object, "changed") { [weak self] in self?.typed() }
        signals.notify(project.object, "selected") { [weak self] in self?.typed() }
        dialog.onClose { [weak self] in self?.selfReference = nil }
        typed()
    }

    func present() {
        selfReference = self
        dialog.present()
        time.grabFocus()
    }

    private var chosenProject: (id: UInt64, name: String)? {
        let index = project.selectedIndex
        guard model.kind == .startAt, index >= 0, index < projects.count else { return nil }
        return (projects[index].id, projects[index].name)
    }

    private func plan() throws -> CorrectionForm.Plan {
        try model.plan(time.editableText, now: context.now, project: chosenProject)
    }

    /// Says what the button would do, as it is typed; anything typed again forgets an Overlap.
    private func typed() {
        shortening = nil
        form.save.buttonLabel = model.action
        form.showError(nil)
        do {
            preview.text = try plan().sentence
            form.save.isSensitive = context.canChange
        } catch let invalid as CorrectionForm.Invalid {
            preview.text = time.editableText.trimmed.isEmpty ? "Type when it happened: \(CorrectionForm.hint)." : invalid.message
            form.save.isSensitive = false
        } catch {
            form.save.isSensitive = false
        }
    }

    private func send() {
        let plan: CorrectionForm.Plan
        do {
            plan = try self.plan()
        } catch let invalid as CorrectionForm.Invalid {
            return form.showError(invalid.message)
        } catch {
            return form.showError("\(error)")
        }
        let request = shortening?.adjusted ?? plan.request
        form.save.isSensitive = false
        context.send(request, failed: { [weak self] error in
            guard let self else { return }
            self.form.save.isSensitive = true
            guard error.name == "Overlap" else { return self.form.showError(error.message) }
            let answer = CorrectionForm.overlapAnswer(error.message, plan: plan)
            self.form.showError(answer.text)
            if answer.offersShortening {
                self.shortening = plan
                self.form.save.buttonLabel = plan.request.member == "EditSession" ? "Shorten and save" : "Shorten and start"
            } else {
                self.form.save.isSensitive = false
            }
        }) { [weak self] _ in
            self?.context.toasts?.show(plan.done)
            self?.finish()
        }
    }

    private func finish() {
        dialog.close()
        selfReference = nil
    }
}
