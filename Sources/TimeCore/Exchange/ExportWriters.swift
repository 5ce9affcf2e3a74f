/// What an export writes: completed sessions with their projects' names and categories.
public struct ExportInput: Sendable {
    public var projects: [Project]
    public var categories: [Category]
    /// Completed sessions, in the order written.
    public var sessions: [WorkSession]
    /// A random id kept with this data, which makes iCalendar UIDs stable across exports.
    public var dataID: String
    public var now: Int64

    public init(projects: [Project], categories: [Category], sessions: [WorkSession], dataID: String, now: Int64) {
        self.projects = projects; self.categories = categories; self.sessions = sessions; self.dataID = dataID; self.now = now
    }

    func projectName(_ id: ProjectID) -> String { projects.first { $0.id == id }?.name ?? "" }
    func categoryName(_ id: ProjectID) -> String {
        guard let category = projects.first(where: { $0.id == id })?.categoryID else { return "" }
        return categories.first { $0.id == category }?.name ?? ""
    }
}

public enum ExportFormat: String, CaseIterable, Sendable {
    case csv, toggl, json, ical
}

public enum ExportWriter {
    public static func write(_ format: ExportFormat, _ input: ExportInput) -> String {
        let lookup = Lookup(input)
        switch format {
        case .csv: return csv(input, lookup)
        case .toggl: return toggl(input, lookup)
        case .json: return json(input, lookup)
        case .ical: return ICalendar.write(input, lookup)
        }
    }

    struct Lookup {
        var names: [ProjectID: String] = [:]
        var categories: [ProjectID: String] = [:]
        init(_ input: ExportInput) {
            let categoryNames = Dictionary(input.categories.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
            for project in input.projects {
                names[project.id] = project.name
                categories[project.id] = project.categoryID.flatMap { categoryNames[$0] } ?? ""
            }
        }
    }

    public static let csvHeader = ["id", "project", "category", "start", "end", "duration_seconds", "duration", "note"]

    static func csv(_ input: ExportInput, _ lookup: Lookup) -> String {
        var out = CSV.row(csvHeader)
        for session in input.sessions {
            guard let end = session.end else { continue }
            let active = session.activeSeconds(at: end)
            out += CSV.row([String(session.id), lookup.names[session.projectID] ?? "", lookup.categories[session.projectID] ?? "",
                            WallClock.iso(session.start), WallClock.iso(end), String(active), WallClock.duration(active), session.note])
        }
        return out
    }

    public static let togglHeader = ["Email", "Client", "Project", "Description", "Start date", "Start time", "Duration", "Tags"]

    /// Toggl Track's import columns, one row per segment (a session without recorded segments:
    /// one row of its active time from its start), so totals stay right without the pauses.
    static func toggl(_ input: ExportInput, _ lookup: Lookup) -> String {
        var out = CSV.row(togglHeader)
        for session in input.sessions {
            guard let end = session.end else { continue }
            var pieces = session.segments.compactMap { segment in segment.end.map { (segment.start, $0 - segment.start) } }
            if session.unrecordedSeconds > 0 || pieces.isEmpty {
                pieces.insert((session.start, session.unrecordedSeconds > 0 ? session.unrecordedSeconds : end - session.start), at: 0)
            }
            for (start, seconds) in pieces {
                out += CSV.row(["", lookup.categories[session.projectID] ?? "", lookup.names[session.projectID] ?? "", session.note,
                                WallClock.localDate(start), WallClock.localClock(start), WallClock.duration(seconds), ""])
            }
        }
        return out
    }

    /// Complete: categories, projects (color, category, archived, rate, weekly target) and sessions
    /// with segments and notes; `Import json` reads it back to the same data.
    static func json(_ input: ExportInput, _ lookup: Lookup) -> String {
        let value = JSON.object([
            ("format", .string(JSONExchange.formatName)),
            ("version", .int(1)),
            ("dataId", .string(input.dataID)),
            ("categories", .array(input.categories.map { .string($0.name) })),
            ("projects", .array(input.projects.map { project in
                .object([("id", .int(project.id)), ("name", .string(project.name)), ("color", .string(project.color)),
                         ("category", .string(lookup.categories[project.id] ?? "")), ("archived", .bool(project.archived)),
                         ("rate", .string(project.rateCents.map(Money.rateText) ?? "")), ("weekly_target", .int(project.weeklyTarget))])
            })),
            ("sessions", .array(input.sessions.compactMap { session in
                guard let end = session.end else { return nil }
                return .object([
                    ("id", .int(session.id)), ("project", .string(lookup.names[session.projectID] ?? "")),
                    ("start", .int(session.start)), ("end", .int(end)),
                    ("unrecordedSeconds", .int(session.unrecordedSeconds)), ("note", .string(session.note)),
                    ("segments", .array(session.segments.map { .array([.int($0.start), .int($0.end ?? end)]) })),
                ])
            })),
        ])
        return value.serialized(.spaced) + "\n"
    }
}
