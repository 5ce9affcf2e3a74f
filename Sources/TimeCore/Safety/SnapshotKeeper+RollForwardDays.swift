/// Rolling forward by days: a store that lost its last commits is at the state its last commit
/// recorded (its `SnapshotMark`), which a kept snapshot holds. The chunk trees of that snapshot and
/// the newest one differ only on the days the lost changes touched, so only those days' sessions
/// (with today's and the open session, which the payload holds itself) are replaced, and the small
/// parts (categories, projects, settings, away) are made equal. The result is compared with the
/// newest snapshot on everything it touched and on the number of sessions; anything unexpected
/// throws, and the caller restores the whole state instead.
extension SnapshotKeeper {
    struct DayRollForwardFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A snapshot's parts needed here, read from its file or slot (chunks also from what slots carry).
    private struct Parts {
        var header: SnapshotFormat.Header
        var top: [SnapshotFormat.ChunkReference]
        var ownSessions: [WorkSession]
        var state: DataState   // without the chunks' sessions
    }

    private func parts(of entry: Entry) throws -> Parts {
        let header = try SnapshotFormat.read(SnapshotSlots.snapshotBytes(at: entry.path))
        guard header.stateHash == entry.stateHash, header.version == SnapshotFormat.currentVersion else {
            throw DayRollForwardFailure("snapshot \(entry.sequence) is not of the current layout")
        }
        var top: [SnapshotFormat.ChunkReference] = []
        for reference in header.payload["chunks"]?.arrayValue ?? [] {
            guard let period = reference["period"]?.stringValue, period.isEmpty, let hash = reference["sha256"]?.stringValue,
                  let count = reference["sessions"]?.intValue else { throw DayRollForwardFailure("a chunk list that is not a root") }
            top.append(SnapshotFormat.ChunkReference(period: period, sha256: hash, sessions: Int(count)))
        }
        var payload = header.payload
        if case .object(let members) = payload { payload = .object(members.filter { $0.0 != "chunks" }) }
        let state = try SnapshotFormat.state(from: payload) { hash in throw SnapshotFormat.Failure.missingChunk(hash) }
        return Parts(header: header, top: top, ownSessions: state.sessions, state: state)
    }

    /// Rolls `store` forward from the kept snapshot it was last recorded with to `entry`, by days.
    func rollForwardByDays(_ store: Store, to entry: Entry) throws {
        guard let recorded = try store.snapshotMark().state,
              let base = recoverable.last(where: { $0.stateHash == recorded && $0.sequence < entry.sequence })
        else { throw DayRollForwardFailure("no kept snapshot of the store's state") }
        let old = try parts(of: base), new = try parts(of: entry)
        var carried = SnapshotSlots.carried(at: entry.path)
        carried.merge(SnapshotSlots.carried(at: base.path)) { mine, _ in mine }
        let folder = directory
        func chunk(_ hash: String) throws -> [UInt8] {
            if let bytes = try? Files.read(folder + "/" + SnapshotKeeper.chunkName(hash)), SHA256.hex(bytes) == hash { return bytes }
            guard let bytes = carried[hash], SHA256.hex(bytes) == hash else { throw SnapshotFormat.Failure.missingChunk(hash) }
            return bytes
        }
        func children(_ reference: SnapshotFormat.ChunkReference?) throws -> [String: SnapshotFormat.ChunkReference] {
            guard let reference else { return [:] }
            guard let parts = SnapshotFormat.indexParts(try chunk(reference.sha256)) else { throw SnapshotFormat.Failure.missingChunk(reference.sha256) }
            return Dictionary(parts.map { ($0.period, $0) }, uniquingKeysWith: { a, _ in a })
        }
        // The days whose chunks differ, and the new chunks of those days.
        var days = Set<String>()
        var newLeaves: [String: SnapshotFormat.ChunkReference] = [:]
        func compare(_ mine: [String: SnapshotFormat.ChunkReference], _ theirs: [String: SnapshotFormat.ChunkReference]) throws {
            for period in Set(mine.keys).union(theirs.keys) where mine[period]?.sha256 != theirs[period]?.sha256 {
                if SnapshotFormat.isDay(period) {
                    days.insert(period)
                    newLeaves[period] = theirs[period]
                } else {
                    try compare(children(mine[period]), children(theirs[period]))
                }
            }
        }
        try compare(Dictionary(old.top.map { ($0.period, $0) }, uniquingKeysWith: { a, _ in a }),
                    Dictionary(new.top.map { ($0.period, $0) }, uniquingKeysWith: { a, _ in a }))
        // The payloads' own sessions: their days are replaced whole (a day's chunk may hold some of them).
        for session in old.ownSessions + new.ownSessions where session.end != nil { days.insert(CivilDate.utcDayKey(session.start)) }
        var incoming = new.ownSessions
        var newRoot = new.top.first.map { [$0.period: $0] } ?? [:]
        for day in days.sorted() {
            // Days that did not differ but hold today's sessions: their chunk as the newest tree has it.
            var leaf = newLeaves[day]
            if leaf == nil {
                for period in ["", String(day.prefix(4)), String(day.prefix(7))] {
                    guard let next = newRoot[period] else { break }
                    newRoot = try children(next)
                }
                leaf = newRoot[day]
                newRoot = new.top.first.map { [$0.period: $0] } ?? [:]
            }
            guard let leaf else { continue }
            guard let json = try? JSON.parse(chunk(leaf.sha256)), json["period"]?.stringValue == day,
                  let list = json["sessions"]?.arrayValue, list.count == leaf.sessions else { throw SnapshotFormat.Failure.missingChunk(leaf.sha256) }
            incoming += try list.map(SnapshotFormat.decodeSession)
        }
        let target = new.state.withGlobalIDs()
        let total = (new.top.first?.sessions ?? 0) + new.ownSessions.count

        try store.begin()
        do {
            try store.database.execute("DELETE FROM \(UndoHistory.table); DELETE FROM away_spans")
            store.database.noteRewrite()  // (truncations: the update hook does not see them)
            try store.database.run("DELETE FROM sessions WHERE end IS NULL")
            for day in days {
                let (start, end) = Store.periodBounds(day)
                try store.database.run("DELETE FROM sessions WHERE start >= ? AND start < ?", .integer(start), .integer(end))
            }
            try makeEqual(store, categories: target.categories, projects: target.projects)
            for session in incoming.sorted(by: { $0.id < $1.id }) { _ = try store.insertSession(session, keepingID: true) }
            try store.setMeta("reminder_minutes", String(target.reminderMinutes))
            try store.restoreAway(target.away)
            try store.setPlanSettings(target.plans)
            try store.setFocusData(target.focus)
            if !target.dataID.isEmpty { try store.setMeta("data_id", target.dataID) }
            try store.setSnapshotMark(SnapshotMark(state: entry.stateHash, sequence: entry.sequence))
            try SyncStore.forgetNotes(in: store)
            try store.commit()
        } catch {
            store.rollback()
            throw error
        }
        // Compared on everything it touched, and counted.
        var touched: [SessionID: WorkSession] = [:]
        for session in incoming { touched[session.id] = try store.session(id: session.id) }
        if let open = try store.openSession() { touched[open.id] = open }
        let stored = DataState(categories: try store.categories(), projects: try store.projects(), sessions: Array(touched.values),
                               reminderMinutes: try store.meta("reminder_minutes").flatMap { UInt32($0) } ?? Tracker.defaultReminderMinutes,
                               away: try store.awayState(), dataID: try store.meta("data_id") ?? "", plans: try store.planSettings(),
                               focus: try store.focusData())
        let expected = DataState(categories: target.categories, projects: target.projects, sessions: incoming,
                                 reminderMinutes: target.reminderMinutes, away: target.away, dataID: target.dataID, plans: target.plans,
                                 focus: target.focus)
        let differences = stored.differences(from: expected)
        let count = try store.database.queryFirst("SELECT count(*) FROM sessions") { $0.int(0) } ?? -1
        guard differences.isEmpty, count == Int64(total) else {
            throw RestoreFailure.mismatch((differences + (count == Int64(total) ? [] : ["\(count) sessions, \(total) expected"])).joined(separator: "; "))
        }
    }

    /// Categories and projects become exactly `categories` and `projects`, ids kept, in an order
    /// the foreign keys allow (sessions of removed projects were removed before).
    private func makeEqual(_ store: Store, categories: [Category], projects: [Project]) throws {
        let db = store.database
        let keptProjects = Set(projects.map(\.id)), keptCategories = Set(categories.map(\.id))
        for project in try store.projects() where !keptProjects.contains(project.id) {
            try db.run("DELETE FROM projects WHERE id = ?", .integer(project.id))
        }
        for category in try store.categories() where !keptCategories.contains(category.id) { try store.deleteCategory(id: category.id) }
        // Names are unique: first move every name out of the way, then set the new ones.
        try db.execute("UPDATE categories SET name_key = 'rolling-forward ' || id; UPDATE projects SET name_key = 'rolling-forward ' || id")
        let existingCategories = Set(try store.categories().map(\.id))
        for category in categories {
            if existingCategories.contains(category.id) {
                try db.run("UPDATE categories SET name = ?, name_key = ?, gid = ? WHERE id = ?", .text(category.name),
                           .text(TextInput.nameKey(category.name)), .text(category.globalID), .integer(category.id))
            } else {
                try store.insertCategory(category)
            }
        }
        let existingProjects = Set(try store.projects().map(\.id))
        for project in projects {
            if existingProjects.contains(project.id) {
                try db.run("UPDATE projects SET name = ?, name_key = ?, color = ?, category_id = ?, archived = ?, gid = ? WHERE id = ?",
                           .text(project.name), .text(TextInput.nameKey(project.name)), .text(project.color),
                           project.categoryID.map(SQLValue.integer) ?? .null, .integer(project.archived ? 1 : 0),
                           .text(project.globalID), .integer(project.id))
                try store.updateProjectPlan(project)
            } else {
                _ = try store.insertProject(project, keepingID: true)
            }
        }
    }
}
