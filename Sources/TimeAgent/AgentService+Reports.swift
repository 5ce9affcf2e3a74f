import DBusKit
import TimeCore

/// The contract's section "Reports over any range, rates and targets": `Report`, and the
/// read-write `Currency`, `WeeklyTarget` and `UntrackedReminderMinutes`. Each setting is one
/// undoable change of the tracker; what follows a change (the week's progress in the tray and the
/// timer notification, the target notification, the not-tracking reminder) follows these too.
extension TimerProperties {
    mutating func setPlans(from tracker: Tracker) {
        let plans = tracker.planSettings
        currency = plans.currency
        weeklyTarget = UInt64(max(0, plans.weeklyTarget))
        untrackedReminderMinutes = plans.untrackedReminderMinutes
    }
}

extension AgentService {
    /// The keys `Report` takes in its options, with their types.
    static let reportOptionTypes = ["format": "s", "group": "s", "columns": "s", "project": "t", "tag": "s",
                                    "round": "s", "round_mode": "s", "decimal": "b"]

    static func reportOptions(_ entries: [String: DBusValue]) throws -> ReportOptions {
        let given = try ChangeSet(entries, allowed: reportOptionTypes, what: "the options of Report")
        var project: Int64?
        if let raw = given.uint64("project") {
            guard raw <= UInt64(Int64.max) else {
                throw TrackerError.invalidArgument("There is no project with id \(raw) to report on; list them with ListProjects (timectl projects), or give 0 for all.")
            }
            project = Int64(raw)
        }
        return try ReportOptions(format: given.string("format"), group: given.string("group"), columns: given.string("columns"),
                                 project: project, tag: given.string("tag"), round: given.string("round"),
                                 roundMode: given.string("round_mode"), decimal: given.bool("decimal"))
    }

    /// ReportPNG's `scheme`: whether the chart is drawn dark (absent: light).
    static func chartScheme(_ value: DBusValue?) throws -> Bool {
        guard let value else { return false }
        switch (value.variantValue ?? value).stringValue ?? "" {
        case "light": return false
        case "dark": return true
        default: throw TrackerError.invalidArgument("The chart's scheme is \"light\" or \"dark\".")
        }
    }

    /// A `t` weekly target as the core takes it (beyond a week is refused there).
    static func weeklyTarget(_ raw: UInt64?) throws -> Int64? {
        guard let raw else { return nil }
        return Int64(clamping: raw)
    }

    var reportMethods: [Method] {
        [
            reading("Report", [Argument("range", "s"), Argument("options", "a{sv}")], [Argument("report", "s")],
                    "A report over any range (2026-11-25, 2026-W48, 2026-11, 2026, A..B, today, yesterday, this-week, last-week, this-month, last-month, this-year): options format (text, json, csv, timesheet, svg), group (project, category, tag), columns (day, week, month), project (t), tag (s), round (a duration), round_mode (up, nearest, down), decimal (b).") { args in
                [.string(try self.tracker.report(range: args.string(0), options: try Self.reportOptions(args.dictionary(1))))]
            },
            reading("ReportPNG", [Argument("range", "s"), Argument("options", "a{sv}")], [Argument("png", "ay")],
                    "The chart of a report (as Report's svg format; the format option is ignored) rasterised to PNG bytes; option scheme (light, dark) draws it for that colour scheme.") { args in
                var options = args.dictionary(1)
                let dark = try Self.chartScheme(options.removeValue(forKey: "scheme"))
                let report = try self.tracker.rangeReport(range: args.string(0), options: try Self.reportOptions(options))
                return [.array(elementSignature: "y", try WeekPicture.png(svg: report.svg(dark: dark)).map { .byte($0) })]
            },
        ]
    }

    var planProperties: [Property] {
        [
            Property(name: "Currency", signature: "s", access: .readWrite,
                     doc: "The ISO 4217 code shown beside amounts (EUR); empty for none.") { [unowned self] in
                .string(self.tracker.planSettings.currency)
            } set: { [unowned self] value in
                try contractCall { try self.tracker.setCurrency(value.stringValue ?? "") }
                self.published.currency = self.tracker.planSettings.currency
                self.afterPlanSetting()
            },
            Property(name: "WeeklyTarget", signature: "t", access: .readWrite,
                     doc: "Seconds to track per week over all projects; 0 for none.") { [unowned self] in
                .uint64(UInt64(max(0, self.tracker.planSettings.weeklyTarget)))
            } set: { [unowned self] value in
                try contractCall { try self.tracker.setWeeklyTarget(Int64(clamping: value.uint64Value ?? 0)) }
                self.published.weeklyTarget = UInt64(max(0, self.tracker.planSettings.weeklyTarget))
                self.afterPlanSetting()
            },
            Property(name: "UntrackedReminderMinutes", signature: "u", access: .readWrite,
                     doc: "Minutes at the desk with no session open before a notification says so (again after as many more); 0 turns it off.") { [unowned self] in
                .uint32(self.tracker.planSettings.untrackedReminderMinutes)
            } set: { [unowned self] value in
                try contractCall { try self.tracker.setUntrackedReminderMinutes(value.uint32Value ?? 0) }
                self.published.untrackedReminderMinutes = self.tracker.planSettings.untrackedReminderMinutes
                self.afterPlanSetting()
            },
        ]
    }

    /// A setting changed through Set (DBusKit announces the property itself): what shows it follows.
    private func afterPlanSetting() { refreshAfterChange() }
}
