/// The sentence a person reads for a history step, read from what the change did to the rows
/// (its changeset), so every change is described without code at the place that makes it:
/// `Stopped Writing at 14:05 after 1:23`, `Added 1:30 to Reviews on 2026-11-28`.
/// Times and dates are local. A change to a table this code does not know is still described
/// ("Changed 3 records of away_spans").
struct StepDescription {
    /// The store after the change.
    let store: Store
    let projectName: (ProjectID) -> String

    // Column positions, in the order the schema migrations created them.
    private enum SessionColumn { static let id = 0, project = 1, start = 2, end = 3, unrecorded = 4, note = 5 }
    private enum SegmentColumn { static let id = 0, session = 1, start = 2, end = 3 }
    private enum ProjectColumn { static let id = 0, name = 1, color = 3, category = 4, archived = 5, rate = 7, target = 8 }

    func sentence(for changeset: Changeset) throws -> String {
        let rows = try changeset.rows()
        let byTable = Dictionary(grouping: rows, by: \.table)
        if let sentence = try categories(byTable["categories"] ?? []) { return sentence }
        if let sentence = try sessions(byTable["sessions"] ?? [], segments: byTable["segments"] ?? []) { return sentence }
        if let sentence = try projects(byTable["projects"] ?? []) { return sentence }
        if let sentence = settings(byTable["meta"] ?? []) { return sentence }
        let tables = byTable.keys.filter { !["meta", "segments"].contains($0) }.sorted()
        guard let table = tables.first ?? byTable.keys.sorted().first else { return "Changed the data" }
        let count = byTable[table]!.count
        return "Changed \(count) record\(count == 1 ? "" : "s") of \(table)"
    }

    // MARK: Sessions and the timer

    private func sessions(_ rows: [Changeset.RowChange], segments: [Changeset.RowChange]) throws -> String? {
        let inserted = rows.filter { $0.operation == .insert }
        let deleted = rows.filter { $0.operation == .delete }
        let updated = rows.filter { $0.operation == .update }
        let stopped = updated.first { $0.old.count > SessionColumn.end && $0.old[SessionColumn.end] == .null && ($0.new[SessionColumn.end]?.integer != nil) }
        let started = inserted.first { $0.value(SessionColumn.end) == .null }

        if let stopped, let id = stopped.value(SessionColumn.id)?.integer, let session = try store.session(id: id) {
            return stoppedSentence(session, thenStarted: started.map { int($0, SessionColumn.project) })
        }
        if let started { return startedSentence(int(started, SessionColumn.project), at: int(started, SessionColumn.start)) }
        if inserted.count > 1 {
            let starts = inserted.map { int($0, SessionColumn.start) }
            return "Added \(inserted.count) sessions from \(day(starts.min()!)) to \(day(starts.max()!))"
        }
        if let added = inserted.first {
            let id = int(added, SessionColumn.id)
            let active = try store.session(id: id).map { $0.activeSeconds(at: $0.end ?? $0.start) } ?? 0
            return "Added \(duration(active)) to \(projectName(int(added, SessionColumn.project))) on \(day(int(added, SessionColumn.start)))"
        }
        if deleted.count > 1 { return "Deleted \(deleted.count) sessions" }
        if let removed = deleted.first {
            let id = int(removed, SessionColumn.id)
            let active = segments.filter { $0.operation == .delete && $0.value(SegmentColumn.session)?.integer == id }
                .reduce(int(removed, SessionColumn.unrecorded)) { total, segment in
                    total + max(0, int(segment, SegmentColumn.end) - int(segment, SegmentColumn.start))
                }
            return "Deleted \(duration(active)) of \(projectName(int(removed, SessionColumn.project))) on \(day(int(removed, SessionColumn.start)))"
        }
        if let edited = updated.first, let session = try store.session(id: int(edited, SessionColumn.id)) {
            let changed = Set((0..<edited.new.count).filter { edited.new[$0] != nil && $0 != SessionColumn.id })
            if changed == [SessionColumn.note] { return editedSentence(session, noteOnly: true) }
            return updated.count > 1 ? "Edited \(updated.count) sessions" : editedSentence(session, noteOnly: false)
        }
        return try timer(segments)
    }

    /// Pause and resume change only segments.
    private func timer(_ segments: [Changeset.RowChange]) throws -> String? {
        guard let row = segments.first else { return nil }
        // An update names only the segment: its session's project is read in one query (this
        // runs before every Pause's reply).
        let sessionID: SQLValue = row.value(SegmentColumn.session) ?? .null
        let project = try store.database.queryFirst(
            "SELECT project_id FROM sessions WHERE id = coalesce(?, (SELECT session_id FROM segments WHERE id = ?))",
            sessionID, .integer(int(row, SegmentColumn.id))) { $0.int(0) }
        let name = project.map(projectName) ?? "the session"
        if row.operation == .insert, row.value(SegmentColumn.end) == .null {
            return "Resumed \(name) at \(clock(int(row, SegmentColumn.start)))"
        }
        if row.operation == .update, row.old.count > SegmentColumn.end, row.old[SegmentColumn.end] == .null,
           let end = row.new[SegmentColumn.end]?.integer {
            return "Paused \(name) at \(clock(end))"
        }
        return "Changed the time of \(name)"
    }

    /// The sentences below are also said by the changes themselves (Tracker's `describeStep`),
    /// from what they know, so that both ways give the same words.
    func stoppedSentence(_ session: WorkSession, thenStarted project: ProjectID? = nil) -> String {
        let end = session.end ?? session.start
        let stop = "Stopped \(projectName(session.projectID)) at \(clock(end)) after \(duration(session.activeSeconds(at: end)))"
        return project.map { stop + " and started \(projectName($0))" } ?? stop
    }

    func startedSentence(_ project: ProjectID, at start: Int64) -> String {
        "Started \(projectName(project)) at \(clock(start))"
    }

    /// One session's row edited, as it is after the change: its note alone, or more.
    func editedSentence(_ session: WorkSession, noteOnly: Bool) -> String {
        let name = projectName(session.projectID)
        guard noteOnly else { return "Edited \(name) on \(day(session.start))" }
        return session.isOpen ? "Changed the note of \(name) (open)" : "Changed the note of \(name) on \(day(session.start))"
    }

    // MARK: Projects, categories, settings

    private func projects(_ rows: [Changeset.RowChange]) throws -> String? {
        guard let row = rows.first else { return nil }
        if rows.count > 1 { return "Changed \(rows.count) projects" }
        let id = int(row, ProjectColumn.id)
        let name = text(row, ProjectColumn.name) ?? projectName(id)
        switch row.operation {
        case .insert: return "Created project \(name)"
        case .delete: return "Deleted project \(name)"
        case .update:
            let changed = Set((0..<row.new.count).filter { row.new[$0] != nil })
            if changed.contains(ProjectColumn.name), let old = row.old[ProjectColumn.name]?.text {
                return "Renamed project \(old) to \(name)"
            }
            if changed == [ProjectColumn.archived] {
                return row.new[ProjectColumn.archived]?.integer == 1 ? "Archived project \(name)" : "Took project \(name) out of the archive"
            }
            if changed == [ProjectColumn.color] { return "Changed the color of \(name)" }
            if changed == [ProjectColumn.rate] {
                guard case .integer(let cents)? = row.new[ProjectColumn.rate] else { return "Removed the rate of \(name)" }
                return "Set the rate of \(name) to \(Money.rateText(cents))"
            }
            if changed == [ProjectColumn.rate, ProjectColumn.target] {
                let target = row.new[ProjectColumn.target]?.integer ?? 0
                let rate = row.new[ProjectColumn.rate]?.integer.map { "the rate of \(name) to \(Money.rateText($0))" } ?? "no rate for \(name)"
                return "Set \(rate) and " + (target == 0 ? "no weekly target" : "its weekly target to \(duration(target))")
            }
            if changed == [ProjectColumn.target] {
                let target = row.new[ProjectColumn.target]?.integer ?? 0
                return target == 0 ? "Removed the weekly target of \(name)" : "Set the weekly target of \(name) to \(duration(target))"
            }
            if changed == [ProjectColumn.category] {
                guard case .integer(let category)? = row.new[ProjectColumn.category],
                      let categoryName = try store.database.queryFirst("SELECT name FROM categories WHERE id = ?", .integer(category), row: { $0.string(0) })
                else { return "Took \(name) out of its category" }
                return "Moved \(name) to category \(categoryName)"
            }
            return "Changed project \(name)"
        }
    }

    private func categories(_ rows: [Changeset.RowChange]) throws -> String? {
        guard let row = rows.first else { return nil }
        let name = text(row, 1) ?? "a category"
        switch row.operation {
        case .insert: return "Added category \(name)"
        case .delete: return "Deleted category \(name)"
        case .update: return "Renamed category \(row.old[1]?.text ?? name) to \(name)"
        }
    }

    private func settings(_ rows: [Changeset.RowChange]) -> String? {
        for row in rows {
            guard case .text(let key)? = row.value(0), !UndoHistory.highWaterKeys.contains(key) else { continue }
            if key == "reminder_minutes", let minutes = row.value(1)?.text {
                return minutes == "0" ? "Turned reminders off" : "Set reminders to every \(minutes) minutes"
            }
            if let sentence = planSetting(key, row.value(1)?.text ?? "") { return sentence }
            return "Changed the setting \(key)"
        }
        return nil
    }

    private func planSetting(_ key: String, _ value: String) -> String? {
        switch key {
        case PlanSettings.Key.currency: return value.isEmpty ? "Removed the currency" : "Set the currency to \(value)"
        case PlanSettings.Key.weeklyTarget:
            let seconds = Int64(value) ?? 0
            return seconds == 0 ? "Removed the weekly target" : "Set the weekly target to \(duration(seconds))"
        case PlanSettings.Key.untrackedMinutes:
            return value == "0" || value.isEmpty ? "Turned the not-tracking reminder off"
                : "Set the not-tracking reminder to \(value) minutes"
        default: return nil
        }
    }

    // MARK: Words

    private func int(_ row: Changeset.RowChange, _ column: Int) -> Int64 { row.value(column)?.integer ?? 0 }
    private func text(_ row: Changeset.RowChange, _ column: Int) -> String? { row.value(column)?.text }

    private func clock(_ time: Int64) -> String { LocalTime.clock(time) }
    private func day(_ time: Int64) -> String { LocalTime.date(of: time).description }

    /// `1:23` (hours and minutes); under a minute, `0:00`.
    static func duration(_ seconds: Int64) -> String {
        let minutes = max(0, seconds) / 60
        return "\(minutes / 60):\(pad(Int(minutes % 60), 2))"
    }
    private func duration(_ seconds: Int64) -> String { StepDescription.duration(seconds) }
}
