import CGtk
import DBusCore
import GtkKit
import TimeClient

/// The week (or a month, or a year): the agent's chart, the table per project and per category,
/// previous and next, Export and Import (the dry run's summary shown before anything changes).
final class WeekView {
    let root = Make.box(true, spacing: 12)
    private let context: WindowContext
    private let signals = SignalBag()
    private let previous = Make.iconButton("go-previous-symbolic", name: "Previous week")
    private let next = Make.iconButton("go-next-symbolic", name: "Next week")
    private let periodPicker = Make.dropDown(name: "Range")
    private let title = Make.label("", style: "title-3")
    private let total = Make.label("", style: "dim-label")
    private let exportFormat = Make.dropDown(name: "Export format")
    private let export = Make.button("Export")
    private let importFormat = Make.dropDown(name: "Import format")
    private let importButton = Make.button("Import")
    private let chart = Make.picture().accessibleName("Chart of the week")
    private let projectTable = Make.grid()
    private let categoryTable = Make.grid()
    private(set) var weekStart: Int64
    private var period = Period.week

    init(context: WindowContext) {
        self.context = context
        weekStart = LocalTime.startOfWeek(context.now)
        root.margins(18)
        periodPicker.setChoices(Period.allCases.map(\.label))
        exportFormat.setChoices(ExchangeFormats.exports.map(\.label))
        importFormat.setChoices(ExchangeFormats.imports.map(\.label))
        gtk_picture_set_can_shrink(chart.opaque, 1)
        chart.expand(horizontally: true).width(480)
        gtk_widget_set_size_request(chart.raw, 480, 260)
        let bar = Make.box(false, spacing: 6, [periodPicker, previous, next, title.expand(horizontally: true),
                                               exportFormat, export, importFormat, importButton])
        let tables = Make.box(true, spacing: 12, [Make.label("By project", style: "heading").align(GTK_ALIGN_START), projectTable,
                                                  Make.label("By category", style: "heading").align(GTK_ALIGN_START), categoryTable])
        let content = Make.box(true, spacing: 12, [chart, total, tables])
        root.append(bar)
        root.append(Make.scrolled(content))
        signals.clicked(previous) { [weak self] in self?.move(-1) }
        signals.clicked(next) { [weak self] in self?.move(1) }
        signals.notify(periodPicker.object, "selected") { [weak self] in self?.pickPeriod() }
        signals.clicked(export) { [weak self] in self?.exportWeek() }
        signals.clicked(importButton) { [weak self] in self?.importFile() }
        Appearance.onChange(signals) { [weak self] in self?.reloadChart() }
    }

    private func move(_ spans: Int) {
        weekStart = period.start(after: weekStart, offset: spans)
        reload()
    }

    /// A new span holds the day the old one started on (this week → this month).
    private func pickPeriod() {
        guard let picked = Period(rawValue: periodPicker.selectedIndex), picked != period else { return }
        period = picked
        let names = ["week", "month", "year"][picked.rawValue]
        gtk_widget_set_tooltip_text(previous.raw, "Previous \(names)")
        gtk_widget_set_tooltip_text(next.raw, "Next \(names)")
        weekStart = picked.start(containing: max(weekStart, min(context.now, period.start(after: weekStart, offset: 1) - 1)))
        reload()
    }

    func reload() {
        let week = weekStart, period = self.period
        context.link.call(WeekModel.report(period, start: week, group: "project")) { [weak self] byProject in
            self?.context.link.call(WeekModel.report(period, start: week, group: "category")) { [weak self] byCategory in
                guard let self, week == self.weekStart, period == self.period,
                      case .success(let p) = byProject, case .success(let c) = byCategory,
                      let model = try? WeekModel(weekStart: week, projects: p.first?.stringValue ?? "{}",
                                                 categories: c.first?.stringValue ?? "{}") else { return }
                self.show(model)
            }
        }
        reloadChart()
        export.isSensitive = context.link.status == .connected
        importButton.isSensitive = context.canChange
    }

    /// The chart, drawn by the agent for the colour scheme in force (an older agent without the
    /// `scheme` option draws its light one).
    private func reloadChart(scheme: Bool = true) {
        let week = weekStart, period = self.period
        context.link.call(WeekModel.chart(period, start: week, dark: scheme ? Appearance.isDark : nil)) { [weak self] result in
            guard let self, week == self.weekStart, period == self.period else { return }
            switch result {
            case .success(let reply):
                guard let bytes = reply.first?.arrayValue?.compactMap(\.byteValue) else { return }
                self.chart.showImage(bytes)
            case .failure(let error):
                if scheme, error.name == "InvalidArgument" { self.reloadChart(scheme: false) }
            }
        }
    }

    private func show(_ model: WeekModel) {
        title.text = model.title
        total.text = model.total
        fill(projectTable, columns: model.columns, rows: model.projects, amounts: model.showsAmounts)
        fill(categoryTable, columns: model.columns, rows: model.categories, amounts: false)
    }

    private func fill(_ table: Widget, columns: [String], rows: [WeekModel.Row], amounts: Bool) {
        table.removeAllChildren()
        for (index, column) in (columns + ["Total"] + (amounts ? ["Amount"] : [])).enumerated() {
            table.attach(Make.label(column, style: "dim-label"), column: Int32(index + 1), row: 0)
        }
        for (r, row) in rows.enumerated() {
            let name = Make.label("").align(GTK_ALIGN_START)
            name.setMarkup(coloredName(row.name, color: row.color))
            table.attach(name, column: 0, row: Int32(r + 1))
            for (c, cell) in (row.cells + [row.total] + (amounts ? [row.amount] : [])).enumerated() {
                table.attach(Make.label(cell).style("numeric"), column: Int32(c + 1), row: Int32(r + 1))
            }
        }
        if rows.isEmpty { table.attach(Make.label("Nothing tracked this week.", style: "dim-label"), column: 0, row: 1) }
    }

    private func exportWeek() {
        let index = max(0, exportFormat.selectedIndex)
        let choice = ExchangeFormats.exports[min(index, ExchangeFormats.exports.count - 1)]
        let name = "time-\(LocalTime.dateString(weekStart)).\(choice.suffix)"
        ChooseFile.run(parent: context.window, title: "Export the \(period.label)", save: true, suggestedName: name) { [weak self] path in
            guard let self, let path else { return }
            self.context.send(WeekModel.export(self.period, start: self.weekStart, format: choice.format), failed: nil) { [weak self] reply in
                let text = reply.first?.stringValue ?? ""
                var error: UnsafeMutablePointer<GError>?
                if g_file_set_contents(path, text, gssize(text.utf8.count), &error) == 0 {
                    let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
                    if let error { g_error_free(error) }
                    self?.context.toasts?.show("Could not write \(path): \(reason)")
                } else {
                    self?.context.toasts?.show("Exported to \(path)")
                }
            }
        }
    }

    private func importFile() {
        let index = max(0, importFormat.selectedIndex)
        let choice = ExchangeFormats.imports[min(index, ExchangeFormats.imports.count - 1)]
        ChooseFile.run(parent: context.window, title: "Import from \(choice.label)", save: false) { [weak self] path in
            guard let self, let path else { return }
            let dryRun = ExchangeFormats.importRequest(format: choice.format, path: path, dryRun: true)
            self.context.send(dryRun, failed: nil) { [weak self] reply in
                guard let self else { return }
                let summary = ExchangeFormats.summary(reply.first?.variantDictionary ?? [:])
                Ask.question(parent: self.context.window, heading: "Import from \(choice.label)?", body: summary,
                             answers: [("cancel", "Cancel"), ("import", "Import")]) { [weak self] answer in
                    guard answer == "import" else { return }
                    let request = ExchangeFormats.importRequest(format: choice.format, path: path, dryRun: false)
                    self?.context.send(request, failed: nil) { [weak self] reply in
                        let added = reply.first?.variantDictionary?["sessions"]?.integer ?? 0
                        self?.context.toasts?.show("Imported \(added) session\(added == 1 ? "" : "s")")
                    }
                }
            }
        }
    }
}
