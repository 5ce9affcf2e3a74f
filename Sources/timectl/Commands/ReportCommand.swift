import TimeClient
import DBusCore
import TimeJSON

/// `timectl report [RANGE]`: the week (as it always was), or any day, week, month, year or span
/// through the agent's `Report`, by project, category or tag, rounded, with amounts and targets,
/// as text, JSON, CSV, a timesheet or a chart.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "report",
        abstract: "Show a report: this week by default, or any day, week, month, year or span of days.",
        discussion: """
            RANGE is 'this' (this week, the default), 'last' or -1 (last week), -2 and so on; an ISO week
            (2026-W48); a day (2026-11-25, today, yesterday); a month (2026-11, this-month, last-month); a
            year (2026, this-year); or days A..B (2026-11-01..2026-11-15), as the agent's Report takes them.
            A week with none of the options below but --json, --svg and --png is the weekly report of
            earlier versions, unchanged. Rounding applies to each session's time within each column
            (day, week or month), the way invoices round entries; amounts come from the projects' hourly
            rates ('timectl project set NAME --rate 85'), targets from 'timectl target' and --target.
            """,
        arguments: [Positional(name: "range", help: "The range (see above); this week by default.", optional: true)],
        options: [
            .flag("--month", help: "This month."), .flag("--last-month", help: "Last month."), .flag("--year", help: "This year."),
            .value("--from", valueName: "date", help: "The first day of a span ('2026-11-01', 'yesterday'); --to defaults to today."),
            .value("--to", valueName: "date", help: "The last day of a span (included)."),
            .value("--by", valueName: "group", help: "Group by project (default), category or tag (a #word in the note)."),
            .value("--columns", valueName: "kind", help: "Columns of a day, week or month (default: by the range's length)."),
            .value("--project", valueName: "name", help: "Only this project's sessions."),
            .value("--tag", valueName: "tag", help: "Only sessions whose note has this #tag."),
            .value("--round", valueName: "duration", help: "Round each session's time per column to this (6m, 15m, 30m, 1h)."),
            .value("--round-mode", valueName: "mode", help: "up, nearest (default) or down."),
            .flag("--decimal", help: "Hours as decimals (1.25) instead of 1:15."),
            .flag("--json", help: "Print the report as JSON."),
            .flag("--csv", help: "Print one CSV row per group and column."),
            .flag("--timesheet", help: "Print a timesheet: one CSV row per session and day, for an invoice."),
            .value("--output", "-o", valueName: "file", help: "Write the report (text, JSON, CSV or timesheet) to FILE."),
            .value("--svg", valueName: "file", help: "Write the chart as SVG to FILE ('-': standard output)."),
            .value("--png", valueName: "file", help: "Write the chart as PNG to FILE ('-': standard output)."),
        ])

    enum Format: String { case text, json, csv, timesheet }

    var range: String
    /// Set when the range is a week and nothing asks for more than the weekly report.
    var weekly: Bool
    var format: Format
    var options: [String: DBusValue] = [:]
    var projectName: String?
    var output: String?, svg: String?, png: String?

    init(_ arguments: ParsedArguments) throws {
        let flags = ["--json", "--csv", "--timesheet"].filter { arguments.flag($0) }
        if flags.count > 1 { throw arguments.usageError("\(flags.joined(separator: " and ")) exclude each other") }
        format = flags.first.flatMap { Format(rawValue: String($0.dropFirst(2))) } ?? .text
        output = arguments.value("--output")
        svg = arguments.value("--svg")
        png = arguments.value("--png")
        if output != nil && (svg != nil || png != nil) { throw arguments.usageError("-o writes the report; --svg and --png write the chart: give one or the other") }
        let chosen = ["--month", "--last-month", "--year"].filter { arguments.flag($0) }
        let from = arguments.value("--from"), to = arguments.value("--to")
        let given = arguments.argument("range")?.trimmed
        if chosen.count + (from != nil || to != nil ? 1 : 0) + (given != nil ? 1 : 0) > 1 {
            throw arguments.usageError("give one range: an argument, --month, --last-month, --year, or --from and --to")
        }
        let now = Context().now
        var week: String?
        if let only = chosen.first {
            range = ReportRange.read(["--month": "this-month", "--last-month": "last-month", "--year": "this-year"][only]!, now: now)!.0
        } else if from != nil || to != nil {
            guard let from else { throw arguments.usageError("--to needs --from (the first day)") }
            guard let first = DateInput.parse(from, now: now) else {
                throw arguments.usageError("cannot read '\(from)' as a date; use \(DateInput.accepted)")
            }
            let lastText = to ?? "today"
            guard let last = DateInput.parse(lastText, now: now) else {
                throw arguments.usageError("cannot read '\(lastText)' as a date; use \(DateInput.accepted)")
            }
            guard first.time <= last.time else { throw arguments.usageError("--from must not come after --to") }
            range = "\(LocalTime.dateString(first.time))..\(LocalTime.dateString(last.time))"
        } else if let text = given, !text.isEmpty {
            guard let resolved = ReportRange.read(text, now: now) else {
                throw arguments.usageError("cannot read '\(text)' as a range: use \(ReportRange.accepted)")
            }
            (range, week) = resolved
        } else {
            (range, week) = ReportRange.read("this-week", now: now)!
        }
        if let by = arguments.value("--by") { options["group"] = .string(try Self.choice(by, ["project", "category", "tag"], "--by", arguments)) }
        if let kind = arguments.value("--columns") { options["columns"] = .string(try Self.choice(kind, ["day", "week", "month"], "--columns", arguments)) }
        if let tag = arguments.value("--tag") { options["tag"] = .string(tag) }
        if let round = arguments.value("--round") {
            guard DurationInput.seconds(round) != nil else { throw arguments.usageError("--round takes a duration such as 6m, 15m, 30m or 1h, not '\(round)'") }
            options["round"] = .string(round)
        }
        if let mode = arguments.value("--round-mode") {
            guard options["round"] != nil else { throw arguments.usageError("--round-mode needs --round") }
            options["round_mode"] = .string(try Self.choice(mode, ["up", "nearest", "down"], "--round-mode", arguments))
        }
        if arguments.flag("--decimal") { options["decimal"] = .bool(true) }
        projectName = arguments.value("--project")
        // The weekly report stays what it was for a week asked for as before.
        weekly = week != nil && options.isEmpty && projectName == nil && format != .csv && format != .timesheet && output == nil
        if weekly, let week { range = week }
    }

    static func choice(_ text: String, _ allowed: [String], _ option: String, _ arguments: ParsedArguments) throws -> String {
        let value = text.trimmed.lowercased()
        guard allowed.contains(value) else {
            throw arguments.usageError("\(option) takes \(allowed.dropLast().joined(separator: ", ")) or \(allowed.last!), not '\(text)'")
        }
        return value
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        var options = self.options
        if let projectName { options["project"] = .uint64(try agent.resolveProject(projectName).id) }
        if svg != nil || png != nil {
            if let svg {
                let reply = weekly ? try agent.call("WeeklyReport", [.string(range), .string("svg")])
                    : try agent.call("Report", [.string(range), .vardict(options.merging(["format": .string("svg")]) { $1 })])
                try ReportFile.save(Array((reply.first?.stringValue ?? "").utf8), to: svg)
            }
            if let png {
                let reply = weekly ? try agent.call("WeeklyReportPNG", [.string(range)])
                    : try agent.call("ReportPNG", [.string(range), .vardict(options)])
                try ReportFile.save((reply.first?.arrayValue ?? []).compactMap(\.byteValue), to: png)
            }
            return
        }
        let text: String
        if weekly {
            text = try agent.call("WeeklyReport", [.string(range), .string(format == .json ? "json" : "text")]).first?.stringValue ?? ""
        } else {
            options["format"] = .string(format.rawValue)
            text = try agent.call("Report", [.string(range), .vardict(options)]).first?.stringValue ?? ""
        }
        let shown = format == .json ? JSON.restyled(text) + "\n" : text
        if let output {
            try ReportFile.save(Array(shown.utf8), to: output)
        } else {
            // (A CSV's last "\r\n" is one Character: look at the last byte.)
            fputsOut(shown.utf8.last == UInt8(ascii: "\n") ? shown : shown + "\n")
        }
    }
}

/// The ranges timectl reads for `report`: the contract's forms, and the week words of earlier
/// versions ('this', 'last', -1, -2 …), which name a week. Words relative to today are turned
/// into the dates they name by timectl's own clock (the one its other date words use), so that
/// 'today' is the day the person means even when the agent's clock is set apart (TIMECTL_NOW).
enum ReportRange {
    static let accepted = "'this', 'last', -1, -2 …, 2026-W48, 2026-11-25, today, yesterday, 2026-11, this-month, last-month, 2026, this-year, or 2026-11-01..2026-11-15"

    /// (the range for the agent's Report, the day that names the week for WeeklyReport when it is a week).
    static func read(_ text: String, now: Int64) -> (String, String?)? {
        let lowered = text.lowercased()
        switch lowered {
        case "this", "this-week":
            return (isoWeek(LocalTime.startOfWeek(now)), LocalTime.dateString(now))
        case "last", "last-week":
            let monday = LocalTime.startOfWeek(LocalTime.startOfDay(now, offset: -7))
            return (isoWeek(monday), LocalTime.dateString(monday))
        case "today": return (LocalTime.dateString(now), nil)
        case "yesterday": return (LocalTime.dateString(LocalTime.startOfDay(now, offset: -1)), nil)
        case "this-month", "last-month":
            let day = LocalTime.day(of: now)
            let (year, month) = lowered == "this-month" ? (day.year, day.month) : day.month == 1 ? (day.year - 1, 12) : (day.year, day.month - 1)
            return ("\(year)-\(LocalTime.pad(month))", nil)
        case "this-year": return (String(LocalTime.day(of: now).year), nil)
        default: break
        }
        if let weeksAgo = LocalTime.weeksAgo(lowered) {
            let monday = LocalTime.startOfWeek(LocalTime.startOfDay(now, offset: -7 * weeksAgo))
            return (isoWeek(monday), LocalTime.dateString(monday))
        }
        let parts = lowered.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 2, parts[0].count == 4, Int(parts[0]) != nil, parts[1].hasPrefix("w"),
           let number = Int(parts[1].dropFirst()), (1...53).contains(number) {
            let name = "\(parts[0])-W\(LocalTime.pad(number))"
            return (name, name)
        }
        let digits = lowered.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || $0 == "-" || $0 == "." }
        return digits && !lowered.isEmpty && lowered.first != "-" ? (text, nil) : nil
    }

    /// `2026-W48` for the week that begins on the local midnight `monday`.
    static func isoWeek(_ monday: Int64) -> String {
        let thursday = LocalTime.fields(LocalTime.startOfDay(monday, offset: 3))
        let january1 = LocalTime.make(year: thursday.year, month: 1, day: 1) ?? monday
        let days = (LocalTime.startOfDay(monday, offset: 3) - january1 + 43_200) / 86_400
        return "\(thursday.year)-W\(LocalTime.pad(Int(days / 7) + 1))"
    }
}
