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
    /// The snapshot mark of the change being made, for its undo step to carry, and the mark the
    /// step took (Store+SnapshotMark.swift). Set and cleared around the step by the keeper.
    var markForStep: SnapshotMark? {
        didSet { markTakenByStep = nil }
    }
    var markTakenByStep: SnapshotMark?
    /// Rows of `sessions` written through this connection when the current transaction began
    /// (SnapshotKeeper+TodaysIDs.swift: a count that moved since the last recorded change means a
    /// transaction it did not see).
    private(set) var sessionWritesAtBegin: UInt64 = 0
    /// The same of sessions and segments together (SnapshotKeeper+KeptDay.swift).
    private(set) var sessionAndSegmentWritesAtBegin: UInt64 = 0
    /// Reads kept between changes (Store+KeptReads.swift).
    var keptOpenSession: KeptRead<WorkSession?>?
    /// Whether the store held no other open session when the kept one was read (the model has
    /// one at most; a store written by other means may not): only then is the store's open
    /// session known after that one ends.
    var openSessionIsOnlyOne = false
    var keptAwaySpan: KeptRead<AwaySpan?>?
    /// The session a Stop or a switch ended while the open session was followed, as the store
    /// holds it (Store+KeptReads.swift), and how often a finished session was read instead.
    var keptEndedSession: KeptRead<WorkSession>?
    /// The finished session an edit wrote, as written (Store+SessionEdits.swift).
    var keptEditedSession: KeptRead<WorkSession>?
    var finishedSessionReads = 0
    /// How often the open session was read from its tables (what `followingOpenSession` spares).
    var openSessionReads = 0
    /// The highest id given out per table, with the rewrite count it was read at (Store+Sessions.swift).
    var knownHighWater: [String: (id: Int64, rewrites: UInt64)] = [:]

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
            // No checkpoint inside a commit: the WAL is folded in after the answer (Store+Checkpoint.swift).
            database.walFrameCount.install(on: database.handle)
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
            try SyncTriggers.matchSyncSetting(self)
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
        let counts = database.writeCounts
        sessionWritesAtBegin = counts.of(["sessions"])
        sessionAndSegmentWritesAtBegin = counts.of(Store.openSessionTables)
        // Prepared once and kept, as every statement of a change (sqlite3_exec parses each time).
        try database.run("BEGIN IMMEDIATE")
    }
    func commit() throws { try database.run("COMMIT") }
    func rollback() {
        try? database.execute("ROLLBACK")
        // The update hook saw the rows written, not their return: whatever was derived from them is stale.
        database.noteRewrite()
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

    /// Keeps `longest_span` an upper bound when a session is written (Store+Sessions).
    func noteSpan(of session: WorkSession) throws {
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

    /// Empties every table (restoring a snapshot into a fresh store starts from here).
    func removeAll() throws {
        try database.execute("DELETE FROM segments; DELETE FROM sessions; DELETE FROM projects; DELETE FROM categories; DELETE FROM meta; DELETE FROM snapshot_mark; \(SnapshotMark.stepMarksCleared);")
        database.noteRewrite()  // (truncations: the update hook does not see them)
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
