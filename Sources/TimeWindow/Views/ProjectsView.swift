import CGtk
import DBusCore
import GtkKit
import TextEscape
import TimeClient

/// The projects with their color and category (archived ones behind a toggle): activating one
/// starts it (or switches to it); each has an edit button; New project and the category manager.
final class ProjectsView {
    let root = Make.box(true, spacing: 12)
    private let context: WindowContext
    private let signals = SignalBag()
    private var rowSignals = SignalBag()
    private let list = Make.listBox()
    private let showArchived = Make.toggle("Show archived")
    private let newProject = Make.button("New project", style: "suggested-action")
    private let manageCategories = Make.button("Categories")
    private var rowProjects: [UnsafeMutableRawPointer: UInt64] = [:]
    private var rows: [Widget] = []
    /// Each row's `row.activate`, which keyboard and assistive technologies invoke.
    private var rowActions: [WidgetActions] = []

    init(context: WindowContext) {
        self.context = context
        root.margins(18)
        let bar = Make.box(false, spacing: 6, [newProject, manageCategories, showArchived])
        root.append(bar)
        root.append(Make.scrolled(list))
        signals.clicked(newProject) { ProjectDialog(context: context, editing: nil).present() }
        signals.clicked(manageCategories) { CategoriesDialog(context: context).present() }
        signals.on(showArchived, "toggled") { [weak self] in self?.show() }
        signals.on(list.object, "row-activated") { [weak self] (row: UnsafeMutableRawPointer?) in
            guard let self, let row, let id = self.rowProjects[row] else { return }
            self.start(id)
        }
        context.onProjectsChanged.append { [weak self] in self?.show() }
    }

    private func start(_ id: UInt64) {
        guard context.canChange else { return }
        context.send(NowModel.start(projectID: id))
    }

    func show() {
        list.removeAllRows()
        rows = []
        rowActions = []
        rowProjects = [:]
        rowSignals = SignalBag()
        let projects = context.projects.filter { showArchived.isActive || !$0.archived }
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
        let open = context.link.properties.state == "idle" ? "" : context.link.properties.project
        for project in projects {
            let row = Widget(adw_action_row_new())
            let actionRow: UnsafeMutablePointer<AdwActionRow> = row.typed()
            let preferencesRow: UnsafeMutablePointer<AdwPreferencesRow> = row.typed()
            adw_preferences_row_set_title(preferencesRow, TextEscape.markup(project.name))
            var subtitle = project.category.isEmpty ? "No category" : project.category
            if project.archived { subtitle += " · archived" }
            if project.name == open { subtitle += " · tracking now" }
            adw_action_row_set_subtitle(actionRow, TextEscape.markup(subtitle))
            gtk_list_box_row_set_activatable(row.typed(), 1)
            // The row's title is its accessible name; the action is how it is activated.
            let actions = WidgetActions(on: row, prefix: "row")
            actions.add("activate") { [weak self] in self?.start(project.id) }
            rowActions.append(actions)
            let dot = Make.label("")
            dot.setMarkup(coloredName("", color: project.color))
            adw_action_row_add_prefix(actionRow, dot.raw)
            let edit = Make.iconButton("document-edit-symbolic", name: "Edit project \(project.name)")
            edit.style("flat").align(GTK_ALIGN_CENTER, GTK_ALIGN_CENTER)
            edit.isSensitive = context.canChange
            rowSignals.clicked(edit) { [weak self] in
                guard let self else { return }
                ProjectDialog(context: self.context, editing: project).present()
            }
            adw_action_row_add_suffix(actionRow, edit.raw)
            list.appendRow(row)
            rows.append(row)
            rowProjects[row.object] = project.id
        }
        newProject.isSensitive = context.canChange
        manageCategories.isSensitive = context.canChange
    }
}

/// The category manager: add one, delete one (its projects become uncategorized; no session is touched).
final class CategoriesDialog {
    private let context: WindowContext
    private let form = Form()
    private let dialog: DialogWindow
    private let signals = SignalBag()
    private var rowSignals = SignalBag()
    private let list = Make.listBox()
    private let name: Widget
    private var selfReference: CategoriesDialog?

    init(context: WindowContext) {
        self.context = context
        name = form.entry("New category", hint: "Name of a new category")
        form.save.buttonLabel = "Add"
        form.cancel.buttonLabel = "Close"
        form.root.append(list)
        dialog = DialogWindow(title: "Categories", parent: context.window, content: form.root)
        signals.clicked(form.save) { [weak self] in self?.add() }
        signals.activated(name) { [weak self] in self?.add() }
        signals.clicked(form.cancel) { [weak self] in self?.dialog.close(); self?.selfReference = nil }
        dialog.onClose { [weak self] in self?.selfReference = nil }
        context.onProjectsChanged.append { [weak self] in self?.show() }
        show()
    }

    func present() {
        selfReference = self
        dialog.present()
    }

    private func show() {
        list.removeAllRows()
        rowSignals = SignalBag()
        for category in context.categories {
            let count = context.projects.filter { $0.category == category }.count
            let row = Widget(adw_action_row_new())
            adw_preferences_row_set_title(row.typed(), TextEscape.markup(category))
            adw_action_row_set_subtitle(row.typed(), "\(count) project\(count == 1 ? "" : "s")")
            let delete = Make.iconButton("user-trash-symbolic", name: "Delete category \(category)")
            delete.style("flat").align(GTK_ALIGN_CENTER, GTK_ALIGN_CENTER)
            rowSignals.clicked(delete) { [weak self] in self?.confirmDelete(category, projects: count) }
            adw_action_row_add_suffix(row.typed(), delete.raw)
            list.appendRow(row)
        }
        list.isVisible = !context.categories.isEmpty
    }

    private func add() {
        let typed = name.editableText.trimmed
        guard !typed.isEmpty else { return form.showError("New category: type its name.") }
        context.send(AgentRequest("AddCategory", [.string(typed)]), failed: { [weak self] in self?.form.showError($0.message) }) { [weak self] _ in
            self?.name.editableText = ""
            self?.form.showError(nil)
            self?.context.reloadProjects()
        }
    }

    private func confirmDelete(_ category: String, projects: Int) {
        let consequence = projects == 0 ? "No project uses it." : "Its \(projects) project\(projects == 1 ? "" : "s") will have no category; no session is changed."
        Ask.question(parent: dialog.window.typed(), heading: "Delete “\(category)”?", body: consequence,
                     answers: [("cancel", "Cancel"), ("delete", "Delete")], destructive: "delete") { [weak self] answer in
            guard let self, answer == "delete" else { return }
            self.context.send(AgentRequest("DeleteCategory", [.string(category)]), failed: { [weak self] in self?.form.showError($0.message) }) { [weak self] _ in
                self?.context.reloadProjects()
            }
        }
    }
}
