/// What an import added (or, in a dry run, would add).
public struct ImportSummary: Equatable, Sendable {
    public var sessions: Int = 0
    public var skipped: Int = 0
    public var projects: [String] = []
    public var categories: [String] = []
    public var from: Int64 = 0
    public var to: Int64 = 0
    public var warnings: [String] = []
    /// The sentence of this change in the history: `Imported 1,234 sessions from Timewarrior`.
    public var description: String = ""
}

extension ImportFormat {
    public var displayName: String {
        switch self {
        case .hamster: "Hamster"
        case .timewarrior: "Timewarrior"
        case .watson: "Watson"
        case .csv: "CSV"
        case .json: "JSON"
        }
    }
}

extension Tracker {
    /// Imports a tool's data (`path` "" = its default location) as one change with one verified
    /// snapshot; with `dryRun` nothing changes. A bad source is refused whole: nothing changes.
    @discardableResult
    public func importData(format rawFormat: String, path: String, dryRun: Bool) throws -> ImportSummary {
        guard let format = ImportFormat(rawValue: rawFormat.trimmingWhitespace().lowercased()) else {
            throw TrackerError.invalidArgument("\"\(rawFormat.prefix(40))\" is not an import format; use one of: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if !dryRun, let readOnlyReason { throw TrackerError.readOnly(readOnlyReason) }
        let data: ExchangeData
        do { data = try format.read(path: path) } catch let error as ExchangeError {
            throw TrackerError.invalidArgument("Nothing was imported: \(error.description).")
        }
        return try importData(data, from: format, dryRun: dryRun)
    }

    /// Maps records onto projects and sessions and adds the new ones in one change.
    public func importData(_ data: ExchangeData, from format: ImportFormat, dryRun: Bool) throws -> ImportSummary {
        var summary = ImportSummary()
        summary.warnings = data.warnings
        let now = clock.now()
        var projectKeys = Dictionary(projectsByID.values.map { (TextInput.nameKey($0.name), $0) }, uniquingKeysWith: { a, _ in a })
        var categoryKeys = Set(categoriesByID.values.map { TextInput.nameKey($0.name) })
        var newCategories: [String] = []
        var newProjects: [(name: String, color: String, category: String, archived: Bool, rateCents: Int64?, weeklyTarget: Int64)] = []
        var pending: [(project: String, session: WorkSession)] = []
        var keysSeen = Set<String>()
        var chosenByTag = 0

        func useCategory(_ raw: String) throws -> String {
            let name = raw.trimmingWhitespace()
            guard !name.isEmpty else { return "" }
            let valid = try TextInput.normalizedName(name, kind: "category")
            if categoryKeys.insert(TextInput.nameKey(valid)).inserted { newCategories.append(valid) }
            return valid
        }
        func useProject(_ raw: String, category: String, color: String = "", archived: Bool = false,
                        rateCents: Int64? = nil, weeklyTarget: Int64 = 0) throws -> String {
            let name = try TextInput.normalizedName(raw, kind: "project")
            let key = TextInput.nameKey(name)
            if projectKeys[key] == nil {
                let category = try useCategory(category)
                projectKeys[key] = Project(id: 0, name: name, color: "", categoryID: nil, archived: archived)
                newProjects.append((name, TextInput.normalizedColor(color) ?? "", category, archived, rateCents, weeklyTarget))
            }
            return key
        }

        for category in data.categories { _ = try useCategory(category) }
        for project in data.projects {
            _ = try useProject(project.name, category: project.category, color: project.color, archived: project.archived,
                               rateCents: project.rateCents, weeklyTarget: project.weeklyTarget)
        }

        for record in data.records {
            guard let end = record.end else { continue } // running: warned by the reader
            guard record.start >= 0 else {
                throw TrackerError.invalidArgument("Nothing was imported: an entry starts before 1970 (\(record.start)); check the source's times.")
            }
            guard end <= now else {
                summary.warnings.append("An entry from \(WallClock.iso(record.start)) to \(WallClock.iso(end)) ends in the future and was not imported.")
                continue
            }
            guard keysSeen.insert(record.key).inserted, try !store.hasSession(importKey: record.key) else {
                summary.skipped += 1
                continue
            }
            var projectName = record.project
            var tags = record.tags
            if data.projectFromTags {
                if let index = tags.firstIndex(where: { projectKeys[TextInput.nameKey($0)] != nil }) {
                    projectName = tags.remove(at: index)
                } else if tags.count == 1 {
                    projectName = tags.removeFirst()
                } else if tags.isEmpty {
                    projectName = format.displayName
                } else {
                    let first = tags.indices.min { tags[$0].utf8.lexicographicallyPrecedes(tags[$1].utf8) }!
                    projectName = tags.remove(at: first)
                    chosenByTag += 1
                }
            }
            var mapped = record
            mapped.tags = tags
            let key: String
            do { key = try useProject(projectName, category: record.category) } catch let error as TrackerError {
                throw TrackerError.invalidArgument("Nothing was imported: the entry from \(WallClock.iso(record.start)) names a project that cannot be used (\(error.message))")
            }
            // Hamster gives an edited fact a new id, and our own exports may come back from another
            // store: those also match a session equal in project, start and end.
            if format == .hamster || format == .csv || format == .json, let existing = projectKeys[key], existing.id != 0,
               try store.hasSession(project: existing.id, start: record.start, end: end) {
                summary.skipped += 1
                continue
            }
            let note = try TextInput.normalizedNote(mapped.noteWithTags)
            var session = WorkSession(id: 0, projectID: 0, start: record.start, end: end, unrecordedSeconds: 0, note: note,
                                      segments: record.segments ?? [Segment(start: record.start, end: end)], importKey: record.key)
            if let active = record.activeSeconds {
                let recorded = session.segments.reduce(0) { $0 + (($1.end ?? end) - $1.start) }
                if record.segments == nil { session.segments = [] }
                session.unrecordedSeconds = max(0, active - (record.segments == nil ? 0 : recorded))
            }
            pending.append((key, session))
        }
        if chosenByTag > 0 {
            summary.warnings.append("\(chosenByTag == 1 ? "1 entry" : "\(chosenByTag) entries") had several tags and none named a project: the first tag in byte order became the project, the others #tags in the note.")
        }
        summary.sessions = pending.count
        summary.projects = newProjects.map(\.name)
        summary.categories = newCategories
        summary.from = pending.map(\.session.start).min() ?? 0
        summary.to = pending.compactMap(\.session.end).max() ?? 0
        summary.description = "Imported \(grouped(pending.count)) \(pending.count == 1 ? "session" : "sessions") from \(format.displayName)"
        guard !dryRun, !(pending.isEmpty && newProjects.isEmpty && newCategories.isEmpty) else { return summary }

        // One change, one verified snapshot, however many records; its sentence in the history
        // of changes is `summary.description`.
        try change {
            describeStep(summary.description)
            var categoryIDs = Dictionary(categoriesByID.values.map { (TextInput.nameKey($0.name), $0.id) }, uniquingKeysWith: { a, _ in a })
            for name in newCategories {
                let id = try store.insertCategory(name: name)
                categoriesByID[id] = try store.category(id: id) ?? Category(id: id, name: name)
                categoryIDs[TextInput.nameKey(name)] = id
            }
            var projectIDs = Dictionary(projectsByID.values.map { (TextInput.nameKey($0.name), $0.id) }, uniquingKeysWith: { a, _ in a })
            for project in newProjects {
                let used = Set(projectsByID.values.filter { !$0.archived }.map(\.color))
                let color = project.color.isEmpty
                    ? (TextInput.palette.first { !used.contains($0) } ?? TextInput.palette[projectsByID.count % TextInput.palette.count])
                    : project.color
                var record = Project(id: 0, name: project.name, color: color,
                                     categoryID: project.category.isEmpty ? nil : categoryIDs[TextInput.nameKey(project.category)],
                                     archived: project.archived, rateCents: project.rateCents, weeklyTarget: project.weeklyTarget)
                record.id = try store.insertProject(record)
                projectsByID[record.id] = record
                projectIDs[TextInput.nameKey(project.name)] = record.id
            }
            for (key, session) in pending {
                var stored = session
                stored.projectID = projectIDs[key]!
                _ = try store.insertSession(stored)
            }
        }
        return summary
    }

    /// Completed sessions overlapping [from, to) (`0, 0` = all; project 0 = all) in a format.
    public func export(format rawFormat: String, from: Int64, to: Int64, project: ProjectID) throws -> String {
        guard let format = ExportFormat(rawValue: rawFormat.trimmingWhitespace().lowercased()) else {
            throw TrackerError.invalidArgument("\"\(rawFormat.prefix(40))\" is not an export format; use one of: \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        var sessions: [WorkSession]
        if from == 0 && to == 0 {
            if project != 0 { _ = try self.project(withID: project) }
            sessions = try store.allSessions().filter { project == 0 || $0.projectID == project }
        } else {
            sessions = try self.sessions(project: project, from: from, to: to == 0 ? Tracker.latestTime + 1 : to)
        }
        sessions = sessions.filter { !$0.isOpen }.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        let input = ExportInput(projects: projects(), categories: categories(), sessions: sessions,
                                dataID: try store.dataID(), now: clock.now())
        return ExportWriter.write(format, input)
    }
}

/// 1234567 → "1,234,567".
func grouped(_ value: Int) -> String {
    let digits = String(value)
    var out = ""
    for (index, character) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
        out.append(character)
    }
    return out
}

extension Store {
    func hasSession(importKey: String) throws -> Bool {
        try database.queryFirst("SELECT 1 FROM sessions WHERE import_key = ?", .text(importKey)) { $0.int(0) } != nil
    }

    func hasSession(project: ProjectID, start: Int64, end: Int64) throws -> Bool {
        try database.queryFirst("SELECT 1 FROM sessions WHERE start = ? AND end = ? AND project_id = ?",
                                .integer(start), .integer(end), .integer(project)) { $0.int(0) } != nil
    }

    /// A random id kept with this data (made by schema v5); stable across exports.
    func dataID() throws -> String {
        if let id = try meta("data_id") { return id }
        // A store restored from a snapshot written before v5 has none: derive one from its oldest records.
        let seed = try database.queryFirst("SELECT coalesce(min(id), 0) || '-' || coalesce(min(start), 0) FROM sessions") { $0.string(0) } ?? ""
        return String(SHA256.hex(Array(seed.utf8)).prefix(16))
    }
}

extension Tracker {
    /// Adds many completed sessions as one change (one snapshot): importing a history.
    /// Each must be completed, in the past, and belong to an existing project.
    @discardableResult
    public func importSessions(_ sessions: [WorkSession]) throws -> [SessionID] {
        for session in sessions {
            _ = try project(withID: session.projectID)
            guard let end = session.end, end >= session.start, end <= clock.now() else {
                throw TrackerError.invalidArgument("Only completed past sessions can be imported (session starting \(session.start)).")
            }
        }
        return try change {
            try sessions.map { try store.insertSession($0) }
        }
    }
}
