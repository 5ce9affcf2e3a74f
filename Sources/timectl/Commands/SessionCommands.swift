import TimeClient
import DBusCore
import TimeJSON

/// Reads a date option; bad input is a usage error naming the accepted forms.
func dateOption(_ name: String, _ arguments: ParsedArguments, now: Int64) throws -> DateInput.Value? {
    guard let text = arguments.value(name) else { return nil }
    guard let value = DateInput.parse(text, now: now) else {
        throw arguments.usageError("cannot read '\(text)' as a date (\(name)); use e.g. \(DateInput.accepted)")
    }
    return value
}

/// "12" or "#12".
func sessionID(_ text: String, _ arguments: ParsedArguments) throws -> UInt64 {
    let trimmed = text.trimmed
    guard let id = UInt64(trimmed.hasPrefix("#") ? String(trimmed.dropFirst()) : trimmed), id > 0 else {
        throw arguments.usageError("a session id is a positive number, not '\(text)'")
    }
    return id
}

/// The clock used while parsing dates: TIMECTL_NOW or the real time.
func parsingNow() -> Int64 { Context().now }

struct Sessions: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "sessions",
        abstract: "List sessions (by default those of the last 7 days, today included).",
        discussion: "A bare day given to --to counts in full: --to 2026-11-25 lists up to the end of that day.",
        options: [
            .value("--project", valueName: "project", help: "Only this project (name, #ID or ID)."),
            .value("--from", valueName: "when", help: "From this date/time (default: 6 days before today, 00:00)."),
            .value("--to", valueName: "when", help: "Up to this date/time (default: the end of today)."),
            .flag("--today", help: "Today's sessions."),
            .flag("--week", help: "This week's (Monday to Sunday)."),
            .flag("--last-week", help: "Last week's."),
            .flag("--overlaps", help: "Only sessions that overlap another, with the ids of the others."),
            jsonFlag,
        ])

    var project: String?
    var from: Int64
    var to: Int64
    var json: Bool
    var overlapsOnly: Bool

    init(_ arguments: ParsedArguments) throws {
        let now = parsingNow()
        project = arguments.value("--project")
        json = arguments.flag("--json")
        overlapsOnly = arguments.flag("--overlaps")
        let spans = ["--today", "--week", "--last-week"].filter(arguments.flag)
        if spans.count > 1 { throw arguments.usageError("\(spans[0]) and \(spans[1]) exclude each other") }
        if let span = spans.first {
            if arguments.value("--from") != nil || arguments.value("--to") != nil {
                throw arguments.usageError("\(span) and --from/--to exclude each other")
            }
            let monday = LocalTime.startOfWeek(now)
            let weeksBack = span == "--last-week" ? 1 : 0
            from = span == "--today" ? LocalTime.startOfDay(now) : LocalTime.startOfDay(monday, offset: -7 * weeksBack)
            to = span == "--today" ? LocalTime.startOfDay(now, offset: 1) : LocalTime.startOfDay(from, offset: 7)
            return
        }
        from = try dateOption("--from", arguments, now: now)?.time ?? LocalTime.startOfDay(now, offset: -6)
        if let end = try dateOption("--to", arguments, now: now) {
            to = end.hasTime ? end.time : LocalTime.startOfDay(end.time, offset: 1)
        } else {
            to = max(LocalTime.startOfDay(now, offset: 1), from + 1)
        }
        if from >= to { throw arguments.usageError("--from must come before --to") }
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        let projects = try agent.listProjects()
        var projectID: UInt64 = 0
        if let project { projectID = try agent.resolveProject(project).id }
        let reply = try agent.call("ListSessions", [.uint64(projectID), .int64(from), .int64(to)])
        let overlapping: (DBusValue) -> Bool = { !($0.variantDictionary?["overlaps"]?.arrayValue ?? []).isEmpty }
        guard let records = tableRecords(reply, json: json, keeping: overlapsOnly ? overlapping : { _ in true },
                                         empty: "No \(overlapsOnly ? "overlapping " : "")sessions from \(LocalTime.dateTimeString(from)) to \(LocalTime.dateTimeString(to)).")
        else { return }
        let colors = Dictionary(projects.map { ($0.id, $0.color) }, uniquingKeysWith: { a, _ in a })
        var table = Table(headers: ["ID", "START", "END", "ACTIVE", "PROJECT", "NOTE"] + (overlapsOnly ? ["OVERLAPS"] : []))
        table.rightAligned = [0, 3]
        for s in records {
            let start = s["start"]?.integer ?? 0
            let end = s["end"]?.integer ?? 0
            let state = s["state"]?.stringValue ?? ""
            var endText = state.isEmpty ? "open" : state
            if end > 0 {
                endText = LocalTime.dateString(end) == LocalTime.dateString(start)
                    ? LocalTime.clockString(end) : LocalTime.dateTimeString(end)
            }
            let projectID = UInt64(s["project_id"]?.integer ?? 0)
            table.rows.append([
                Cell(String(s["id"]?.integer ?? 0)),
                Cell(LocalTime.dateTimeString(start)),
                Cell(endText),
                Cell(Format.hms(s["active"]?.integer ?? 0)),
                Cell(s["project"]?.stringValue ?? "", color: colors[projectID]),
                Cell(Format.oneLine(s["note"]?.stringValue ?? "")),
            ] + (overlapsOnly ? [Cell((s["overlaps"]?.arrayValue ?? []).compactMap(\.integer).map(String.init).joined(separator: ","))] : []))
        }
        fputsOut(table.render(color: context.color))
    }
}

let durationHelp = "What you would type: \(DurationInput.accepted)."

struct AddSession: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "add",
        abstract: "Add a past session by hand.",
        discussion: """
            Give its duration and when it began or ended: --duration alone means it ended now
            ('add Writing --duration 1h': the hour just past); --end T ends it at T; --start and --end
            without --duration take the time between them.
            """,
        arguments: [projectArgument],
        options: [
            .value("--start", valueName: "when", help: "When it began, e.g. 'yesterday 14:30'."),
            .value("--end", valueName: "when", help: "When it ended (default: now)."),
            .value("--duration", valueName: "duration", help: durationHelp),
            .value("--note", valueName: "text", help: "Its note."),
        ])

    var project: String, start: Int64, duration: String, note: String

    init(_ arguments: ParsedArguments) throws {
        project = arguments.required("project")
        note = arguments.value("--note") ?? ""
        let now = parsingNow()
        let start = try dateOption("--start", arguments, now: now)?.time
        let end = try dateOption("--end", arguments, now: now)?.time
        let duration = arguments.value("--duration")
        switch (start, end, duration) {
        case (_?, _?, _?):
            throw arguments.usageError("give two of --start, --end and --duration, not all three")
        case (let start?, nil, let duration?):
            self.start = start
            self.duration = duration
        case (let start?, let end?, nil):
            guard end > start else { throw arguments.usageError("--end must come after --start") }
            self.start = start
            self.duration = Format.hms(end - start)
        case (nil, let end, let duration?):
            guard let seconds = DurationInput.seconds(duration) else {
                throw arguments.usageError("cannot read '\(duration)' as a duration (--duration); use e.g. \(DurationInput.accepted)")
            }
            self.start = (end ?? now) - seconds
            self.duration = duration
        case (_?, nil, nil), (nil, _?, nil), (nil, nil, nil):
            throw arguments.usageError("--duration is required (with --start, with --end, or alone for a session that ended now), "
                                       + "or give both --start and --end")
        }
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        let target = try agent.resolveProject(project)
        let reply = try agent.call("AddSession", [.uint64(target.id), .int64(start), .string(duration), .string(note)])
        let id = UInt64(reply.first?.integer ?? 0)
        output("Added session \(id): \(target.name), \(LocalTime.dateTimeString(start)), \(duration.trimmed).")
        agent.warnAboutOverlaps(of: id, around: start, start + (DurationInput.seconds(duration) ?? 1))
    }
}

struct EditSession: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "edit",
        abstract: "Change a session: its project, start, duration or note ('current': the open session).",
        discussion: """
            A new start moves the whole completed session; a new duration replaces its segments with one.
            The open session ('current', or its id) takes --start (when you really began: its first
            stretch starts then; at most 24 hours ago, '-10m' and '10 minutes ago' too), --project and
            --note; it has no duration yet: end it with 'timectl stop --at TIME'. An earlier start over
            a completed session is refused, naming it, unless --adjust shortens that session.
            A completed session that then overlaps another is kept, with a warning naming the other.
            """,
        arguments: [Positional(name: "session", help: "The session's id (see 'timectl sessions'), or 'current'.")],
        options: [
            .value("--project", valueName: "project", help: "Move it to this project."),
            .value("--start", valueName: "when", help: "A new start."),
            .value("--duration", valueName: "duration", help: durationHelp),
            .value("--note", valueName: "text", help: "A new note ('' clears it)."),
            adjustFlag,
        ])

    /// nil: the open session ('current').
    var session: UInt64?
    var project: String?
    var changes: [String: DBusValue] = [:]

    init(_ arguments: ParsedArguments) throws {
        let word = arguments.required("session")
        session = word.trimmed.lowercased() == "current" ? nil : try sessionID(word, arguments)
        project = arguments.value("--project")
        let now = parsingNow()
        if arguments.value("--start") != nil {
            // A moment ('-10m', '9:00') or, for a completed session, a bare day.
            let start = try? momentOption("--start", arguments, now: now)
            changes["start"] = .int64(try start ?? dateOption("--start", arguments, now: now)!.time)
        }
        if let duration = arguments.value("--duration") { changes["duration"] = .string(duration) }
        if let note = arguments.value("--note") { changes["note"] = .string(note) }
        if arguments.flag("--adjust") {
            guard changes["start"] != nil else { throw arguments.usageError("--adjust goes with --start") }
            changes["adjust"] = .bool(true)
        }
        if changes.isEmpty && project == nil {
            throw arguments.usageError("nothing to change: give --project, --start, --duration or --note")
        }
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        var changes = self.changes
        if let project { changes["project"] = .uint64(try agent.resolveProject(project).id) }
        let id: UInt64
        if let session {
            id = session
        } else {
            id = UInt64(try agent.property("SessionId").integer ?? 0)
            if id == 0 { throw RefusedError(message: "no session is open: there is no 'current' session to edit (see 'timectl status')") }
        }
        try offeringAdjust(adjusting: changes["adjust"] != nil) {
            try agent.call("EditSession", [.uint64(id), .vardict(changes)])
        }
        output("Updated session \(id).")
        if changes["start"] != nil || changes["duration"] != nil, let record = try agent.sessionRecord(id, now: context.now),
           let start = record["start"]?.integer, let end = record["end"]?.integer, end != 0 {
            agent.warnAboutOverlaps(of: id, around: start, end)
        }
    }
}

struct DeleteSession: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "delete",
        abstract: "Delete a completed session.",
        arguments: [Positional(name: "session", help: "The session's id (see 'timectl sessions').")])

    var session: UInt64
    init(_ arguments: ParsedArguments) throws { session = try sessionID(arguments.required("session"), arguments) }

    func run(_ context: Context) throws {
        try context.agent().call("DeleteSession", [.uint64(session)])
        output("Deleted session \(session).")
    }
}
