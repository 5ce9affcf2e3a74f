import CGtk
import DBusCore
import GtkKit
import TextEscape
import TimeClient

/// The sessions of one day (today first): previous, next, pick a date; edit, delete with an Undo
/// toast, continue a session's project, add time by hand.
final class DayView {
    let root = Make.box(true, spacing: 12)
    private let context: WindowContext
    private let signals = SignalBag()
    private var rowSignals = SignalBag()
    private let previous = Make.iconButton("go-previous-symbolic", name: "Previous day")
    private let next = Make.iconButton("go-next-symbolic", name: "Next day")
    private let today = Make.button("Today")
    private let pick = Widget(gtk_menu_button_new()).accessibleName("Pick a date").tooltip("Pick a date")
    private let calendar = Widget(gtk_calendar_new()).accessibleName("Date")
    private let title = Make.label("", style: "title-3")
    private let total = Make.label("", style: "dim-label")
    private let addTime = Make.button("Add time", style: "suggested-action")
    private let list = Make.listBox()
    private let empty = Make.label("Nothing tracked on this day.", style: "dim-label")
    private(set) var dayStart: Int64
    private var sessions: [SessionRecord] = []

    init(context: WindowContext) {
        self.context = context
        dayStart = LocalTime.startOfDay(context.now)
        root.margins(18)
        gtk_menu_button_set_icon_name(pick.opaque, "x-office-calendar-symbolic")
        let popover = Widget(gtk_popover_new())
        gtk_popover_set_child(popover.typed(), calendar.raw)
        gtk_menu_button_set_popover(pick.opaque, popover.raw)
        let bar = Make.box(false, spacing: 6, [previous, today, next, pick, title.expand(horizontally: true), addTime])
        for widget in [bar, total, Make.scrolled(list), empty] { root.append(widget) }
        signals.clicked(previous) { [weak self] in self?.move(days: -1) }
        signals.clicked(next) { [weak self] in self?.move(days: 1) }
        signals.clicked(today) { [weak self] in
            guard let self else { return }
            self.dayStart = LocalTime.startOfDay(context.now)
            self.reload()
        }
        signals.on(calendar.object, "day-selected") { [weak self] in self?.picked() }
        signals.clicked(addTime) { [weak self] in
            guard let self else { return }
            let dialog = SessionDialog(context: context, session: nil, day: self.dayStart)
            dialog.onSaved = { [weak self] in self?.reload() }
            dialog.present()
        }
    }

    private func move(days: Int) {
        dayStart = LocalTime.startOfDay(dayStart, offset: days)
        reload()
    }

    private func picked() {
        guard let date = gtk_calendar_get_date(calendar.opaque) else { return }
        defer { g_date_time_unref(date) }
        let year = Int(g_date_time_get_year(date)), month = Int(g_date_time_get_month(date)), day = Int(g_date_time_get_day_of_month(date))
        if let start = LocalTime.make(year: year, month: month, day: day), start != dayStart {
            dayStart = start
            gtk_menu_button_popdown(pick.opaque)
            reload()
        }
    }

    func reload() {
        let shownDay = dayStart
        context.link.call(DayModel.request(dayStart: shownDay)) { [weak self] result in
            guard let self, shownDay == self.dayStart, case .success(let reply) = result else { return }
            self.sessions = (reply.first?.arrayValue ?? []).compactMap(\.variantDictionary).map(SessionRecord.init)
            self.show()
        }
    }

    private func show() {
        let model = DayModel(dayStart: dayStart, sessions: sessions, now: context.now)
        title.text = model.title
        total.text = model.total
        list.removeAllRows()
        rowSignals = SignalBag()
        let canChange = context.canChange
        for row in model.rows {
            let line = Widget(adw_action_row_new())
            adw_preferences_row_set_title(line.typed(), TextEscape.markup("\(row.span)  \(row.project)"))
            let details = [row.active, row.note, row.device.isEmpty ? "" : "on \(row.device)"].filter { !$0.isEmpty }
            adw_action_row_set_subtitle(line.typed(), TextEscape.markup(details.joined(separator: " · ")))
            // The title is the row's name; the rest is read as its description.
            line.accessibleDescription(row.summary + (row.overlapNote.map { ", " + $0.lowercased() } ?? ""))
            if let overlap = row.overlapNote {
                // Kept, but counted twice: said by an icon whose tooltip names the other session.
                let mark = Widget(gtk_image_new_from_icon_name("dialog-warning-symbolic")).accessibleName(overlap).tooltip(overlap)
                adw_action_row_add_prefix(line.typed(), mark.raw)
            }
            let continueButton = Make.iconButton("media-playback-start-symbolic", name: "Continue \(row.project)")
            let edit = Make.iconButton("document-edit-symbolic", name: "Edit session")
            let delete = Make.iconButton("user-trash-symbolic", name: "Delete session")
            for button in [continueButton, edit, delete] {
                button.style("flat").align(GTK_ALIGN_CENTER, GTK_ALIGN_CENTER)
                adw_action_row_add_suffix(line.typed(), button.raw)
            }
            continueButton.isSensitive = canChange && !row.isOpen
            edit.isSensitive = canChange && (row.editable || row.startEditable)
            delete.isSensitive = canChange && row.editable
            let session = sessions.first { $0.id == row.id }
            rowSignals.clicked(continueButton) { [weak self] in
                self?.context.send(NowModel.start(projectID: row.projectID))
            }
            rowSignals.clicked(edit) { [weak self] in
                guard let self, let session else { return }
                if row.startEditable {
                    // The open session: when it really began (its end is StopAt's, in the Now view).
                    let model = CorrectionForm(kind: .startedAt, properties: self.context.link.properties)
                    return CorrectionDialog(context: self.context, model: model).present()
                }
                let dialog = SessionDialog(context: self.context, session: session, day: self.dayStart)
                dialog.onSaved = { [weak self] in self?.reload() }
                dialog.present()
            }
            rowSignals.clicked(delete) { [weak self] in self?.delete(row) }
            list.appendRow(line)
        }
        list.isVisible = !model.rows.isEmpty
        empty.isVisible = model.rows.isEmpty
        addTime.isSensitive = canChange
    }

    /// Deletes at once and offers the agent's Undo in a toast, as GNOME's apps do.
    private func delete(_ row: DayModel.Row) {
        context.send(DayModel.delete(row.id), failed: nil) { [weak self] _ in
            guard let self else { return }
            self.context.toasts?.show("Deleted \(row.project) \(row.span)", button: "Undo") { [weak self] in
                guard let self else { return }
                // Undo takes the newest step: if another change came since, it is not this delete.
                let newest = self.context.link.properties.canUndo
                guard DayModel.isDeletion(newest, of: row.project) else {
                    self.context.toasts?.show("Not undone: the newest change is now “\(newest)”; Undo in the header bar undoes it.")
                    return
                }
                self.context.send(AgentRequest("Undo"), failed: nil) { [weak self] reply in
                    self?.context.toasts?.show("Undone: " + (reply.first?.stringValue ?? ""))
                }
            }
        }
    }
}
