import CSQLite

/// The SQLite store: typed reads and writes of the tracker's records, nothing more.
/// Rules (uniqueness, state machine) live in `Tracker`; snapshots in `Safety`.
public final class Store {
    public let database: SQLiteDatabase
    /// Months ("YYYY-MM", UTC, by session start) whose completed sessions changed in the
    /// current transaction: the snapshot rewrites only these.
    /// UTC days ("YYYY-MM-DD") of the starts of finished sessions the current transaction touched.
    private(set) var changedDays: Set<String> = []
    /// Ids of the finished sessions the current transaction touched (before and after a change).
    private(set) var changedSessionIDs: Set<SessionID> = []

    /// Opens an existing store (or creates one) and brings it to the current schema.
    /// Throws `StoreOpenError` when the file is not a usable store; it is then left as it was.
    public init(path: String, create: Bool) throws {
        do {
            database = try SQLiteDatabase(path: path, mode: create ? .readWriteCreate : .readWrite)
            try database.execute("PRAGMA foreign_keys = ON")
            let problems = try database.check()
            guard problems == ["ok"] else { throw StoreOpenError.damaged(problems.prefix(3).joined(separator: "; ")) }
            switch try Schema.status(of: database) {
            case .superseded(let version): throw StoreOpenError.newerSchema(version)
            case .unknown(let version): throw StoreOpenError.unknownSchema(version)
            case .empty, .needsMigration, .upToDate: break
            }
            try database.execute("PRAGMA journal_mode = WAL")
            // A commit is not flushed: the snapshot flushed before it is the durable record, and a
            // start-up after a power cut rolls the store forward from it (SnapshotKeeper+RollForward).
            try database.execute("PRAGMA synchronous = NORMAL")
            // Before v12 drops them: sync's merged state moves to its own file (derived data: if
            // that fails, the next start with sync on rebuilds it from the folder instead).
            if path != ":memory:" { try? SyncReplicaStore.copyOutOfStore(database, storePath: path) }
            try Schema.migrate(database)
            // SQLite creates the store with the process umask (0644 by default) and its -wal and
            // -shm with the store's mode: the data is private, 0600 (the data-safety invariants).
            if path != ":memory:" {
                for suffix in ["", "-wal", "-shm", "-journal"] where Files.kind(path + suffix) == .regular {
                    Files.makePrivate(path + suffix)
                }
            }
            if try meta("longest_span") == nil {
                // Once per store: later writes keep it up to date.
                try setMeta("longest_span", String(try longestCompletedSpan()))
            }
        } catch let error as StoreOpenError {
            throw error
        } catch let error as SQLiteError {
            throw StoreOpenError.unreadable(error.message)
        }
    }

    /// Opens a store for reading only (read-only mode). `immutable` touches no file at all but
    /// cannot see changes still in the WAL; without it SQLite reads the WAL (and may create `-shm`).
    public init(readOnlyPath path: String, immutable: Bool) throws {
        database = immutable
            ? try SQLiteDatabase(path: "file:\(path)?immutable=1", mode: SQLiteDatabase.OpenMode(uri: true))
            : try SQLiteDatabase(path: path, mode: .readOnly)
        guard try Schema.status(of: database) == .upToDate else {
            throw StoreOpenError.unknownSchema(try database.integerPragma("user_version"))
        }
    }

    /// Folds the WAL back into the main file; called on a clean shutdown.
    public func checkpoint() throws {
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    // MARK: Transactions

    func begin() throws {
        changedDays.removeAll()
        changedSessionIDs.removeAll()
        // Prepared once and kept, as every statement of a change (sqlite3_exec parses each time).
        try database.run("BEGIN IMMEDIATE")
    }
    func commit() throws { try database.run("COMMIT") }
    func rollback() {
        try? database.execute("ROLLBACK")
        changedDays.removeAll()
        changedSessionIDs.removeAll()
    }

    func markChanged(_ session: WorkSession) {
        guard !session.isOpen else { return }
        changedDays.insert(CivilDate.utcDayKey(session.start))
        changedSessionIDs.insert(session.id)
    }

    private var knownLongestSpan: Int64?

    /// An upper bound of the wall-clock span of any completed session (kept in `meta`), which
    /// bounds how far back a range query must look for sessions overlapping its start.
    public func longestSpan() throws -> Int64 {
        if let known = knownLongestSpan { return known }
        let value = try meta("longest_span").flatMap { Int64($0) } ?? longestCompletedSpan()
        knownLongestSpan = value
        return value
    }

    private func noteSpan(of session: WorkSession) throws {
        guard let end = session.end else { return }
        if end - session.start > (try longestSpan()) {
            try setMeta("longest_span", String(end - session.start))
            knownLongestSpan = end - session.start
        }
    }

    // MARK: Settings

    func meta(_ key: String) throws -> String? {
        try database.queryFirst("SELECT value FROM meta WHERE key = ?", .text(key)) { $0.string(0) }
    }
    func setMeta(_ key: String, _ value: String) throws {
        try database.run("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                         .text(key), .text(value))
    }

    // MARK: Categories and projects

    public func categories() throws -> [Category] {
        try database.query("SELECT id, name, coalesce(gid, '') FROM categories ORDER BY id") {
            Category(id: $0.int(0), name: $0.string(1), globalID: $0.string(2))
        }
    }

    func insertCategory(name: String) throws -> Int64 {
        try database.run("INSERT INTO categories(name, name_key, gid) VALUES(?, ?, ?)", .text(name), .text(TextInput.nameKey(name)),
                         .text(SyncRecord.newID()))
        return database.lastInsertRowID
    }

    func insertCategory(_ category: Category) throws {
        try database.run("INSERT INTO categories(id, name, name_key, gid) VALUES(?, ?, ?, ?)",
                         .integer(category.id), .text(category.name), .text(TextInput.nameKey(category.name)),
                         .text(category.globalID.isEmpty ? SyncRecord.newID() : category.globalID))
    }

    func deleteCategory(id: Int64) throws {
        // Its projects first, as a statement of our own: the foreign key's own SET NULL would run
        // sync's triggers under its ABORT policy, so a project noted twice failed the delete.
        try database.run("UPDATE projects SET category_id = NULL WHERE category_id = ?", .integer(id))
        try database.run("DELETE FROM categories WHERE id = ?", .integer(id))
    }

    public func projects() throws -> [Project] {
        try database.query(
            "SELECT id, name, color, category_id, archived, coalesce(gid, ''), rate_cents, weekly_target FROM projects ORDER BY id"
        ) {
            Project(id: $0.int(0), name: $0.string(1), color: $0.string(2), categoryID: $0.optionalInt(3), archived: $0.int(4) != 0,
                    globalID: $0.string(5), rateCents: $0.optionalInt(6), weeklyTarget: $0.int(7))
        }
    }

    func insertProject(_ project: Project, keepingID: Bool = false) throws -> ProjectID {
        try database.run(
            "INSERT INTO projects(id, name, name_key, color, category_id, archived, gid, rate_cents, weekly_target) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
            keepingID ? .integer(project.id) : .null, .text(project.name), .text(TextInput.nameKey(project.name)),
            .text(project.color), project.categoryID.map(SQLValue.integer) ?? .null, .integer(project.archived ? 1 : 0),
            .text(project.globalID.isEmpty ? SyncRecord.newID() : project.globalID),
            project.rateCents.map(SQLValue.integer) ?? .null, .integer(project.weeklyTarget))
        return database.lastInsertRowID
    }

    /// The columns sync knows (name, color, category, archived); the rate and target are left as
    /// they are (`updateProjectPlan`), so a merged record never clears them.
    func updateProject(_ project: Project) throws {
        try database.run("UPDATE projects SET name = ?, name_key = ?, color = ?, category_id = ?, archived = ? WHERE id = ?",
                         .text(project.name), .text(TextInput.nameKey(project.name)), .text(project.color),
                         project.categoryID.map(SQLValue.integer) ?? .null, .integer(project.archived ? 1 : 0),
                         .integer(project.id))
    }

    // MARK: Sessions

    private static let sessionColumns = "id, project_id, start, end, unrecorded_seconds, note, coalesce(import_key, ''), coalesce(gid, '')"

    private func sessions(where condition: String, _ values: [SQLValue]) throws -> [WorkSession] {
        let statement = try database.statement("SELECT \(Store.sessionColumns) FROM sessions WHERE \(condition) ORDER BY start, id")
        defer { statement.reset() }
        try statement.bind(values)
        var found: [WorkSession] = []
        while try statement.step() {
            let row = Row(statement: statement)
            var session = WorkSession(id: row.int(0), projectID: row.int(1), start: row.int(2), end: row.optionalInt(3),
                                      unrecordedSeconds: row.int(4), note: row.string(5), segments: [], importKey: row.string(6))
            session.globalID = row.string(7)
            found.append(session)
        }
        return try withSegments(found)
    }

    private func withSegments(_ sessions: [WorkSession]) throws -> [WorkSession] {
        guard !sessions.isEmpty else { return sessions }
        var result = sessions
        if sessions.count == 1 {
            result[0].segments = try database.query(
                "SELECT start, end FROM segments WHERE session_id = ? ORDER BY start, id", .integer(sessions[0].id)
            ) { Segment(start: $0.int(0), end: $0.optionalInt(1)) }
            return result
        }
        let low = sessions.map(\.id).min()!, high = sessions.map(\.id).max()!
        // A day of the past edited today holds old ids and new ones: a range from one to the other
        // would read the segments of every session between them, so sparse ids are read one by one.
        if high - low >= 4 * Int64(sessions.count) {
            let statement = try database.statement("SELECT start, end FROM segments WHERE session_id = ? ORDER BY start, id")
            defer { statement.reset() }
            for offset in result.indices {
                statement.reset()
                try statement.bind([.integer(result[offset].id)])
                while try statement.step() {
                    let row = Row(statement: statement)
                    result[offset].segments.append(Segment(start: row.int(0), end: row.optionalInt(1)))
                }
            }
            return result
        }
        var index: [SessionID: Int] = [:]
        for (offset, session) in sessions.enumerated() { index[session.id] = offset }
        // Sessions read by a range of start mostly have neighbouring ids: one indexed range query.
        let statement = try database.statement(
            "SELECT session_id, start, end FROM segments WHERE session_id BETWEEN ? AND ? ORDER BY session_id, start, id")
        defer { statement.reset() }
        try statement.bind([.integer(low), .integer(high)])
        while try statement.step() {
            let row = Row(statement: statement)
            if let offset = index[row.int(0)] {
                result[offset].segments.append(Segment(start: row.int(1), end: row.optionalInt(2)))
            }
        }
        return result
    }

    public func session(id: SessionID) throws -> WorkSession? {
        try sessions(where: "id = ?", [.integer(id)]).first
    }

    public func openSession() throws -> WorkSession? {
        try sessions(where: "end IS NULL", []).first
    }

    /// Sessions overlapping [from, to): the open one included, `project` 0 meaning all.
    public func sessions(overlapping from: Int64, _ to: Int64, project: ProjectID = 0) throws -> [WorkSession] {
        let earliest = from.subtractingSaturated(try longestSpan())
        var found = try sessions(
            where: "start >= ? AND start < ? AND (end IS NULL OR end > ? OR (end = start AND start >= ?)) AND (? = 0 OR project_id = ?)",
            [.integer(earliest), .integer(to), .integer(from), .integer(from), .integer(project), .integer(project)])
        // An open session that began before the window (however long ago) still overlaps it.
        if let open = try openSession(), open.start < earliest, project == 0 || open.projectID == project {
            found.insert(open, at: 0)
        }
        return found
    }

    /// Completed sessions that began in a UTC period ("YYYY", "YYYY-MM" or "YYYY-MM-DD"), by id,
    /// from `firstID` on; with `leavingOut`, without those that began on that day from that id
    /// on (a snapshot keeps them itself). One snapshot chunk.
    func completedSessions(inPeriod period: String, fromID firstID: Int64 = .min,
                           leavingOut inline: (day: String, firstID: Int64)? = nil) throws -> [WorkSession] {
        let (start, end) = Store.periodBounds(period)
        var condition = "start >= ? AND start < ? AND end IS NOT NULL AND id >= ?"
        var values: [SQLValue] = [.integer(start), .integer(end), .integer(firstID)]
        if let inline {
            let (dayStart, dayEnd) = Store.periodBounds(inline.day)
            if dayStart < end && dayEnd > start {
                condition += " AND NOT (start >= ? AND start < ? AND id >= ?)"
                values += [.integer(dayStart), .integer(dayEnd), .integer(inline.firstID)]
            }
        }
        return try sessions(where: condition, values).sorted { $0.id < $1.id }
    }

    /// The ids of the completed sessions that began in a UTC period, in order.
    func completedSessionIDs(inPeriod period: String) throws -> [Int64] {
        let (start, end) = Store.periodBounds(period)
        return try database.query("SELECT id FROM sessions WHERE start >= ? AND start < ? AND end IS NOT NULL ORDER BY id",
                                  .integer(start), .integer(end)) { $0.int(0) }
    }

    public func allSessions() throws -> [WorkSession] {
        try sessions(where: "1", []).sorted { $0.id < $1.id }
    }

    /// Every UTC month ("YYYY-MM") that holds a completed session.
    func monthsWithCompletedSessions() throws -> [String] {
        let starts = try database.query(
            "SELECT DISTINCT start / 86400 - (start < 0 AND start % 86400 != 0) FROM sessions WHERE end IS NOT NULL") { $0.int(0) }
        return Array(Set(starts.map { CivilDate.utcMonthKey($0 * 86400) })).sorted()
    }

    /// The UTC instants where a period ("YYYY", "YYYY-MM" or "YYYY-MM-DD") begins and ends.
    static func periodBounds(_ period: String) -> (Int64, Int64) {
        let parts = period.split(separator: "-")
        let year = Int(parts[0])!
        if parts.count == 3, let month = Int(parts[1]), let day = Int(parts[2]) {
            let first = Int64(CivilDate(year: year, month: month, day: day).dayNumber) * 86400
            return (first, first + 86400)
        }
        guard parts.count == 2, let month = Int(parts[1]) else {
            return (Int64(CivilDate(year: year, month: 1, day: 1).dayNumber) * 86400,
                    Int64(CivilDate(year: year + 1, month: 1, day: 1).dayNumber) * 86400)
        }
        let first = CivilDate(year: year, month: month, day: 1)
        let next = month == 12 ? CivilDate(year: year + 1, month: 1, day: 1) : CivilDate(year: year, month: month + 1, day: 1)
        return (Int64(first.dayNumber) * 86400, Int64(next.dayNumber) * 86400)
    }

    /// A new session id: never one that was used before, even by a deleted session, so that a
    /// script holding an old id cannot edit someone else's session. (SQLite alone would reuse
    /// the id of the newest session once it was deleted.)
    private func nextSessionID() throws -> SessionID {
        let used = try meta("last_session_id").flatMap { Int64($0) } ?? 0
        let highest = try database.queryFirst("SELECT max(id) FROM sessions") { $0.optionalInt(0) } ?? nil
        return max(used, highest ?? 0) + 1
    }

    func insertSession(_ session: WorkSession, keepingID: Bool = false) throws -> SessionID {
        let id = keepingID ? session.id : try nextSessionID()
        let globalID = session.globalID.isEmpty ? SyncRecord.newID() : session.globalID
        try database.run("INSERT INTO sessions(id, project_id, start, end, unrecorded_seconds, note, import_key, gid) VALUES(?, ?, ?, ?, ?, ?, ?, ?)",
                         .integer(id), .integer(session.projectID), .integer(session.start),
                         session.end.map(SQLValue.integer) ?? .null, .integer(session.unrecordedSeconds), .text(session.note),
                         session.importKey.isEmpty ? .null : .text(session.importKey), .text(globalID))
        if !keepingID { try setMeta("last_session_id", String(id)) }
        try insertSegments(session.segments, of: id)
        try noteSpan(of: session)
        var stored = session
        stored.id = id
        stored.globalID = globalID
        markChanged(stored)
        return id
    }

    /// Segment ids are never used twice either. The undo history names segments by id: had a
    /// session's rewritten segments taken ids a deleted session freed, a later segment of another
    /// session could reuse one of theirs within a step, and undoing that step (which deletes the
    /// other session, its segments with it) would find the record it means gone.
    private func insertSegments(_ segments: [Segment], of id: SessionID) throws {
        guard !segments.isEmpty else { return }
        let used = try meta("last_segment_id").flatMap { Int64($0) } ?? 0
        let highest = try database.queryFirst("SELECT max(id) FROM segments") { $0.optionalInt(0) } ?? nil
        var segmentID = max(used, highest ?? 0)
        for segment in segments {
            segmentID += 1
            try database.run("INSERT INTO segments(id, session_id, start, end) VALUES(?, ?, ?, ?)",
                             .integer(segmentID), .integer(id), .integer(segment.start), segment.end.map(SQLValue.integer) ?? .null)
        }
        try setMeta("last_segment_id", String(segmentID))
    }

    /// Rewrites a session row; segments too when `segmentsChanged`.
    func updateSession(_ session: WorkSession, previous: WorkSession, segmentsChanged: Bool) throws {
        try database.run("UPDATE sessions SET project_id = ?, start = ?, end = ?, unrecorded_seconds = ?, note = ? WHERE id = ?",
                         .integer(session.projectID), .integer(session.start), session.end.map(SQLValue.integer) ?? .null,
                         .integer(session.unrecordedSeconds), .text(session.note), .integer(session.id))
        if segmentsChanged {
            try database.run("DELETE FROM segments WHERE session_id = ?", .integer(session.id))
            try insertSegments(session.segments, of: session.id)
        }
        try noteSpan(of: session)
        markChanged(previous)
        markChanged(session)
    }

    /// Pause: the running segment of the open session ends.
    func closeRunningSegment(of id: SessionID, at time: Int64) throws {
        try database.run("UPDATE segments SET end = ? WHERE session_id = ? AND end IS NULL", .integer(time), .integer(id))
    }

    /// Resume: a new running segment begins.
    func openSegment(of id: SessionID, at time: Int64) throws {
        try insertSegments([Segment(start: time, end: nil)], of: id)
    }

    func deleteSession(_ session: WorkSession) throws {
        try database.run("DELETE FROM sessions WHERE id = ?", .integer(session.id))
        markChanged(session)
    }

    /// The project of the most recently started session: what Toggle starts from idle.
    func lastUsedProjectID() throws -> ProjectID? {
        try database.queryFirst("SELECT project_id FROM sessions ORDER BY start DESC, id DESC LIMIT 1") { $0.int(0) }
    }

    /// The longest wall-clock span of any completed session, which bounds range queries.
    func longestCompletedSpan() throws -> Int64 {
        try database.queryFirst("SELECT max(end - start) FROM sessions WHERE end IS NOT NULL") { $0.int(0) } ?? 0
    }

    /// Empties every table (restoring a snapshot into a fresh store starts from here).
    func removeAll() throws {
        try database.execute("DELETE FROM segments; DELETE FROM sessions; DELETE FROM projects; DELETE FROM categories; DELETE FROM meta;")
        try setMeta("longest_span", "0")
        knownLongestSpan = 0
    }
}

/// Why a store file could not be used. The file itself is left as it was.
public enum StoreOpenError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case damaged(String)
    case newerSchema(Int64)
    case unknownSchema(Int64)

    public var description: String {
        switch self {
        case .unreadable(let reason): "the store cannot be opened (\(reason))"
        case .damaged(let reason): "the store is damaged (\(reason))"
        case .newerSchema(let version): "the store was written by a newer version of Time (schema \(version); this version reads up to \(Schema.currentVersion))"
        case .unknownSchema(let version): "the store has an unknown schema (version \(version))"
        }
    }
}

extension SQLiteDatabase.OpenMode {
    init(uri: Bool) { self.init(flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI) }
}

extension Int64 {
    func subtractingSaturated(_ other: Int64) -> Int64 {
        let (value, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : value
    }
}
