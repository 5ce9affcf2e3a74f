import CGtk
import GtkKit

/// A dialog's form: labelled fields in a grid, a line for the agent's answer, Cancel and Save.
/// What was typed stays in the fields whatever the agent answers.
final class Form {
    let root = Make.box(true, spacing: 12)
    let grid = Make.grid()
    let error = Make.label("", wrap: true)
    let cancel = Make.button("Cancel")
    let save = Make.button("Save", style: "suggested-action")
    private var rows: Int32 = 0

    init() {
        root.margins(18)
        error.style("error")
        error.isVisible = false
        let buttons = Make.box(false, spacing: 12, [cancel, save]).align(GTK_ALIGN_END)
        for widget in [grid, error, buttons] { root.append(widget) }
    }

    /// Adds a field with its visible label; the field's accessible name is the label (set once:
    /// GTK 4.8 would say a name given both ways twice).
    @discardableResult
    func field(_ label: String, _ widget: Widget) -> Widget {
        let caption = Make.label(label).align(GTK_ALIGN_END)
        widget.accessibleName(label).expand(horizontally: true)
        grid.attach(caption, column: 0, row: rows)
        grid.attach(widget, column: 1, row: rows)
        rows += 1
        return widget
    }

    /// A text field, filled with `text`.
    func entry(_ label: String, text: String = "", hint: String = "") -> Widget {
        let entry = Make.entry(name: label, hint: hint)
        entry.editableText = text
        return field(label, entry)
    }

    /// A line across the form (a sentence saying what Save would do).
    func line(_ widget: Widget) {
        grid.attach(widget, column: 0, row: rows, width: 2)
        rows += 1
    }

    func showError(_ message: String?) {
        error.text = message ?? ""
        error.isVisible = message != nil
    }
}
