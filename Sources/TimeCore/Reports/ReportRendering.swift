public enum ReportFormat: String, Sendable {
    case text, json, svg

    public init(argument: String) throws {
        let text = argument.trimmingWhitespace().lowercased()
        if text.isEmpty { self = .text; return }
        guard let format = ReportFormat(rawValue: text) else {
            throw TrackerError.invalidArgument("\"\(argument.prefix(40))\" is not a report format; use \"text\", \"json\" or \"svg\".")
        }
        self = format
    }
}

extension WeeklyReport {
    public func rendered(_ format: ReportFormat) -> String {
        switch format {
        case .json: json.serialized
        case .text: text
        case .svg: svg
        }
    }

    private static func days(_ values: [Int64]) -> JSON { .array(values.map(JSON.int)) }

    /// The contract's JSON form, keys in the documented order.
    public var json: JSON {
        .object([
            ("week", .string(week.isoName)),
            ("from", .string(week.monday.description)),
            ("to", .string(week.sunday.description)),
            ("timezone", .string(timeZone)),
            ("total", .int(total)),
            ("days", Self.days(days)),
            ("projects", .array(projects.map { line in
                .object([("id", .int(line.projectID)), ("name", .string(line.name)), ("color", .string(line.color)),
                         ("category", .string(line.category)), ("total", .int(line.total)), ("days", Self.days(line.days))])
            })),
            ("categories", .array(categories.map { line in
                .object([("name", .string(line.name)), ("total", .int(line.total)), ("days", Self.days(line.days))])
            })),
            ("estimated_sessions", .int(Int64(estimatedSessions))),
        ])
    }

    /// "7:05" for hours and minutes; "-" for nothing at all.
    public static func clockDuration(_ seconds: Int64) -> String {
        guard seconds > 0 else { return "-" }
        let minutes = seconds / 60
        return "\(minutes / 60):\(pad(Int(minutes % 60), 2))"
    }

    private static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// A table for a terminal or a notification.
    public var text: String {
        var out = "Week \(week.isoName): \(week.monday) to \(week.sunday) (\(timeZone))\n"
        if projects.isEmpty {
            out += "\nNo time tracked this week.\n"
            return out
        }
        let nameWidth = min(28, max(7, (projects.map { $0.name.count } + categories.map { max($0.name.count, 15) }).max() ?? 7))
        func cell(_ text: String, _ width: Int, right: Bool) -> String {
            let shown = text.count > width ? String(text.prefix(width - 1)) + "…" : text
            let padding = String(repeating: " ", count: width - shown.count)
            return right ? padding + shown : shown + padding
        }
        func row(_ name: String, _ values: [Int64], _ total: Int64) -> String {
            cell(name, nameWidth, right: false) + values.map { cell(Self.clockDuration($0), 6, right: true) }.joined()
                + cell(Self.clockDuration(total), 8, right: true) + "\n"
        }
        let header = cell("", nameWidth, right: false) + Self.weekdayNames.map { cell($0, 6, right: true) }.joined()
            + cell("Total", 8, right: true) + "\n"
        out += "\n" + header
        for line in projects { out += row(line.name, line.days, line.total) }
        out += row("Total", days, total)
        let used = categories.filter { $0.total > 0 }
        if !used.isEmpty && !(used.count == 1 && used[0].name.isEmpty) {
            out += "\n"
            for line in used { out += row(line.name.isEmpty ? "(uncategorized)" : line.name, line.days, line.total) }
        }
        if focusDays.contains(where: { $0 > 0 }) {
            out += "\n" + cell("Focus", nameWidth, right: false) + focusDays.map { cell($0 == 0 ? "-" : String($0), 6, right: true) }.joined()
                + cell(String(focusDays.reduce(0, +)), 8, right: true) + "\n"
        }
        if estimatedSessions > 0 {
            out += "\n\(estimatedSessions) session\(estimatedSessions == 1 ? "" : "s") from an older store spread evenly over their span.\n"
        }
        return out
    }
}

extension Tracker {
    /// The contract's `WeeklyReport(week, format)`.
    public func weeklyReport(week spec: String, format: String) throws -> String {
        let format = try ReportFormat(argument: format)
        return try weeklyReport(week: spec).rendered(format)
    }

    public func weeklyReport(week spec: String) throws -> WeeklyReport {
        let now = clock.now()
        let week = try Week.parse(spec, now: now)
        let elsewhere = (sessionsElsewhere?() ?? []).filter { $0.start < week.end }
        let sessions = try store.sessions(overlapping: week.start, week.end) + elsewhere
        let projects = Dictionary(uniqueKeysWithValues: self.projects().map { ($0.id, $0) })
        let categoryNames = Dictionary(uniqueKeysWithValues: categories().map { ($0.id, $0.name) })
        return WeeklyReport(week: week, sessions: sessions, projects: projects, categoryNames: categoryNames, now: now)
    }

    /// Active seconds today and this week (local), the open session up to now included.
    public func todayAndWeekSeconds() throws -> (today: Int64, week: Int64) {
        let now = clock.now()
        let report = try weeklyReport(week: "")
        let today = LocalTime.date(of: now).isoWeekday - 1
        return (report.days[today], report.total)
    }
}
