import DBusCore
import TimeClient
import TimeJSON

/// The span the Week view shows: a week (Monday to Sunday, a column a day), a month (a column
/// a week) or a year (a column a month), in local time.
public enum Period: Int, CaseIterable {
    case week, month, year

    public var label: String { ["Week", "Month", "Year"][rawValue] }

    /// The report's columns for the span, so that the table stays a few columns wide.
    public var columns: String { ["day", "week", "month"][rawValue] }

    /// The first local midnight of the span holding `time`.
    public func start(containing time: Int64) -> Int64 {
        let day = LocalTime.day(of: time)
        switch self {
        case .week: return LocalTime.startOfWeek(time)
        case .month: return LocalTime.make(year: day.year, month: day.month, day: 1) ?? time
        case .year: return LocalTime.make(year: day.year, month: 1, day: 1) ?? time
        }
    }

    /// The start of the span `offset` spans after the one starting at `start`.
    public func start(after start: Int64, offset: Int) -> Int64 {
        let day = LocalTime.day(of: start)
        switch self {
        case .week: return LocalTime.startOfDay(start, offset: 7 * offset)
        case .month:
            let months = day.year * 12 + (day.month - 1) + offset
            return LocalTime.make(year: months / 12, month: months % 12 + 1, day: 1) ?? start
        case .year: return LocalTime.make(year: day.year + offset, month: 1, day: 1) ?? start
        }
    }

    /// The range `Report` takes: its first and last day.
    public func range(start: Int64) -> String {
        let last = LocalTime.startOfDay(self.start(after: start, offset: 1), offset: -1)
        return "\(LocalTime.dateString(start))..\(LocalTime.dateString(last))"
    }
}

/// The Week view: the table per project and per category from the agent's `Report` (JSON) of a
/// week (or a month, or a year: `Period`) in local time.
public struct WeekModel: Equatable {
    public struct Row: Equatable {
        public var name: String
        public var color: String
        public var cells: [String]
        public var total: String
        /// What the time is worth at the project's rate (`"850.00 EUR"`); `""` without a rate.
        public var amount: String
    }

    public var weekStart: Int64
    public var title: String
    public var columns: [String]
    public var projects: [Row]
    public var categories: [Row]
    public var total: String
    /// Whether any row has an amount (the table then shows that column).
    public var showsAmounts: Bool

    /// `projects` and `categories` are the agent's JSON reports of the week grouped each way.
    public init(weekStart: Int64, projects: String, categories: String) throws {
        self.weekStart = weekStart
        let byProject = try JSON.parse(projects), byCategory = try JSON.parse(categories)
        let from = byProject["from"]?.stringValue ?? LocalTime.dateString(weekStart)
        let to = byProject["to"]?.stringValue ?? LocalTime.dateString(LocalTime.startOfDay(weekStart, offset: 6))
        title = "\(from) – \(to)"
        columns = (byProject["columns"]?.arrayValue ?? []).map { column in
            let date = column["from"]?.stringValue ?? ""
            guard column["to"]?.stringValue == date, let day = DateInput.parseDay(date),
                  let time = LocalTime.make(year: day.year, month: day.month, day: day.day) else {
                return column["label"]?.stringValue ?? date
            }
            return ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][LocalTime.fields(time).weekday - 1] + " \(day.day)"
        }
        let currency = byProject["currency"]?.stringValue ?? ""
        func rows(_ report: JSON, unnamed: String) -> [Row] {
            (report["groups"]?.arrayValue ?? []).map { group in
                let name = group["name"]?.stringValue ?? ""
                let rate = group["rate"]?.stringValue ?? ""
                let amount = rate.isEmpty ? "" : (group["amount"]?.stringValue ?? "") + (currency.isEmpty ? "" : " " + currency)
                return Row(name: name.isEmpty ? unnamed : name, color: group["color"]?.stringValue ?? "",
                           cells: (group["columns"]?.arrayValue ?? []).map { Shown.hoursMinutes($0.intValue ?? 0) },
                           total: Shown.hoursMinutes(group["total"]?.intValue ?? 0), amount: amount)
            }
        }
        self.projects = rows(byProject, unnamed: "(no project)")
        self.categories = rows(byCategory, unnamed: "Uncategorized").map { row in var r = row; r.amount = ""; return r }
        showsAmounts = self.projects.contains { !$0.amount.isEmpty }
        let target = byProject["target"]?.intValue ?? 0
        let focus = byProject["focus"]?.intValue ?? 0
        total = "Total " + Shown.hoursMinutes(byProject["total"]?.intValue ?? 0)
            + (target > 0 ? " of \(Shown.hoursMinutes(target))" : "")
            + (focus > 0 ? " · \(focus) focus phase\(focus == 1 ? "" : "s")" : "")
    }

    /// The range the agent's `Report` takes for the week starting at `weekStart`.
    public static func range(weekStart: Int64) -> String { Period.week.range(start: weekStart) }

    public static func report(_ period: Period = .week, start: Int64, group: String) -> AgentRequest {
        AgentRequest("Report", [.string(period.range(start: start)),
                                .vardict(["format": .string("json"), "group": .string(group), "columns": .string(period.columns)])])
    }

    /// The chart as PNG, drawn for the colour scheme in force (`dark`); nil `dark`: the agent's
    /// default (light), for an agent that has no `scheme` option.
    public static func chart(_ period: Period = .week, start: Int64, dark: Bool? = nil) -> AgentRequest {
        var options: [String: DBusValue] = ["columns": .string(period.columns)]
        if let dark { options["scheme"] = .string(dark ? "dark" : "light") }
        return AgentRequest("ReportPNG", [.string(period.range(start: start)), .vardict(options)])
    }

    /// `Export` of the span's sessions in `format` (`csv`, `toggl`, `json`, `ical`).
    public static func export(_ period: Period = .week, start: Int64, format: String) -> AgentRequest {
        AgentRequest("Export", [.string(format), .int64(start), .int64(period.start(after: start, offset: 1)), .uint64(0)])
    }
}

/// Import and export choices as the window names them, with the agent's format names.
public enum ExchangeFormats {
    public static let exports: [(label: String, format: String, suffix: String)] = [
        ("CSV", "csv", "csv"), ("Toggl CSV", "toggl", "csv"), ("JSON (Time)", "json", "json"), ("iCalendar", "ical", "ics"),
    ]
    public static let imports: [(label: String, format: String)] = [
        ("Hamster", "hamster"), ("Timewarrior", "timewarrior"), ("Watson", "watson"), ("CSV (Time)", "csv"), ("JSON (Time)", "json"),
    ]

    public static func importRequest(format: String, path: String, dryRun: Bool) -> AgentRequest {
        AgentRequest("Import", [.string(format), .string(path), .bool(dryRun)])
    }

    /// What a dry run found, for a person to confirm before anything changes.
    public static func summary(_ result: [String: DBusValue]) -> String {
        let sessions = result["sessions"]?.integer ?? 0, skipped = result["skipped"]?.integer ?? 0
        var lines = ["\(sessions) new session\(sessions == 1 ? "" : "s"), \(skipped) already here."]
        let projects = (result["projects"]?.arrayValue ?? []).compactMap(\.stringValue)
        if !projects.isEmpty { lines.append("New projects: " + projects.joined(separator: ", ") + ".") }
        let categories = (result["categories"]?.arrayValue ?? []).compactMap(\.stringValue)
        if !categories.isEmpty { lines.append("New categories: " + categories.joined(separator: ", ") + ".") }
        let from = result["from"]?.integer ?? 0, to = result["to"]?.integer ?? 0
        if from > 0 && to > 0 { lines.append("From \(LocalTime.dateString(from)) to \(LocalTime.dateString(to)).") }
        for warning in (result["warnings"]?.arrayValue ?? []).compactMap(\.stringValue) { lines.append("Note: " + warning) }
        return lines.joined(separator: "\n")
    }
}

/// Undo and Redo as the header shows them: what each would do.
public struct HistoryModel: Equatable {
    public var undo: String
    public var redo: String

    /// `history` is `History`' answer, newest first; `canUndo` the `CanUndo` property.
    public init(canUndo: String, history: [[String: DBusValue]]) {
        undo = canUndo
        // Undo goes newest first, so what Redo re-applies is the oldest of the undone steps on top.
        redo = history.prefix { $0["undone"]?.boolValue == true }.last?["description"]?.stringValue ?? ""
    }

    public static let historyRequest = AgentRequest("History", [.uint32(100)])
}
