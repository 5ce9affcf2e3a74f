/// The store's schema versions as named, ordered migrations, applied once each in a transaction
/// (the shape of GRDB's DatabaseMigrator). `PRAGMA user_version` records the version reached.
///
/// v2: projects, categories, sessions with a total of active time and no notes.
/// v3: notes on sessions.
/// v4: exact active segments; a session's old total becomes its "unrecorded" time.
/// v5: away spans (time the person was away from a running session, until they answer).
/// v6: import keys on sessions (what makes a re-import add nothing) and a random id of this data.
/// v7: the undo history (`undo_steps`): the newest changes, each a sentence and a changeset.
/// v8: global ids of categories, projects and sessions, and what sync has still to publish (SyncStore.swift).
/// v9: the merged state of the sync folder's records (SyncReplicaStore.swift), so that a start reads only what is new.
/// v10: sync's notes of what a change wrote name each field (SyncStore.swift), so that a record
///      carries only the fields a person's change set, never what the device derived.
/// v11: an hourly rate and a weekly target on projects (PlanSettings.swift); the currency, the
///      overall weekly target and the not-tracking reminder are settings in `meta`.
/// v12: the merged state of v9 leaves the store for a file of its own (SyncReplicaStore.swift),
///      so that a start's quick_check and raw archive read only the data: copied there first
///      (Store.init), then dropped from the store, which is compacted once (VACUUM).
/// v13: the focus timer (FocusModel.swift): a session's completed focus phases (`focus`); the
///      focus settings and the cycle are settings in `meta`.
/// v14: sync's notes also name a project's rate and weekly target and the shared settings
///      (currency, weekly target) written in `meta` (SyncPlans.swift), so that they travel.
/// v15: the snapshot a commit goes with (its state and sequence) moves from `meta` into a table of
///      its own, `snapshot_mark` (Store+SnapshotMark.swift): written by every change, it no
///      longer fires the settings' sync triggers.
/// v16: the undo history's table without AUTOINCREMENT (UndoHistory.swift): its counter in
///      `sqlite_sequence` was a page more that every change wrote.
/// v17: the snapshot mark of a change that writes an undo step goes in the step's row
///      (`mark_state`, `mark_sequence`; Store+SnapshotMark.swift): `snapshot_mark`'s page was one
///      of the three WAL frames of a Pause.
/// v18: the id counters in `meta` are written by a trigger when the row with the highest id is
///      deleted, not by every insert (Store+IDHighWater.swift): one WAL frame less in a start and
///      in a Resume.
/// Sync's triggers (`sync_notes_…`) are in a store only while sync is on (SyncTriggers.swift): a
/// migration that drops or remakes one says `IF EXISTS`.
enum Schema {
    static let currentVersion: Int64 = 18
    static let oldestVersion: Int64 = 2

    struct Migration {
        let version: Int64
        let name: String
        let sql: String
    }

    static let migrations: [Migration] = [
        Migration(version: 2, name: "projects, categories and sessions", sql: """
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE categories(
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                name_key TEXT NOT NULL UNIQUE);
            CREATE TABLE projects(
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                name_key TEXT NOT NULL UNIQUE,
                color TEXT NOT NULL,
                category_id INTEGER REFERENCES categories(id) ON DELETE SET NULL,
                archived INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE sessions(
                id INTEGER PRIMARY KEY,
                project_id INTEGER NOT NULL REFERENCES projects(id),
                start INTEGER NOT NULL,
                end INTEGER,
                active_seconds INTEGER NOT NULL DEFAULT 0,
                running_since INTEGER);
            CREATE INDEX sessions_by_start ON sessions(start);
            """),
        Migration(version: 3, name: "notes", sql: """
            ALTER TABLE sessions ADD COLUMN note TEXT NOT NULL DEFAULT '';
            """),
        Migration(version: 4, name: "segments", sql: """
            CREATE TABLE segments(
                id INTEGER PRIMARY KEY,
                session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                start INTEGER NOT NULL,
                end INTEGER);
            CREATE INDEX segments_by_session ON segments(session_id, start);
            INSERT INTO segments(session_id, start, end)
                SELECT id, running_since, NULL FROM sessions WHERE end IS NULL AND running_since IS NOT NULL;
            ALTER TABLE sessions RENAME COLUMN active_seconds TO unrecorded_seconds;
            ALTER TABLE sessions DROP COLUMN running_since;
            CREATE INDEX sessions_open ON sessions(end) WHERE end IS NULL;
            """),
        Migration(version: 5, name: "away spans", sql: AwaySpan.schemaSQL),
        Migration(version: 6, name: "import keys", sql: """
            ALTER TABLE sessions ADD COLUMN import_key TEXT;
            CREATE UNIQUE INDEX sessions_by_import_key ON sessions(import_key) WHERE import_key IS NOT NULL;
            INSERT OR IGNORE INTO meta(key, value) VALUES('data_id', lower(hex(randomblob(8))));
            """),
        Migration(version: 7, name: "undo history", sql: UndoHistory.schemaV7),
        Migration(version: 8, name: "global ids", sql: SyncStore.schema),
        Migration(version: 9, name: "sync merged state", sql: SyncReplicaStore.storeSchemaV9),
        Migration(version: 10, name: "sync field notes", sql: SyncStore.fieldNotesSchema),
        Migration(version: 11, name: "rates and targets", sql: PlanSettings.schema),
        Migration(version: 12, name: "sync merged state apart", sql: SyncReplicaStore.storeSchemaV12),
        Migration(version: 13, name: "focus", sql: FocusSpan.schema),
        Migration(version: 14, name: "sync notes of rates, targets and shared settings", sql: SyncPlans.notesSchema),
        Migration(version: 15, name: "the snapshot mark out of meta", sql: SnapshotMark.schema),
        Migration(version: 16, name: "undo steps without a counter table", sql: UndoHistory.schemaV16),
        Migration(version: 17, name: "the snapshot mark in the undo step's row", sql: SnapshotMark.schemaV17),
        Migration(version: 18, name: "id counters written when the newest row goes", sql: IDHighWater.schemaV18),
    ]

    enum Status: Equatable {
        case empty
        case upToDate
        case needsMigration(from: Int64)
        /// Written by a newer Time: never touched, never downgraded.
        case superseded(Int64)
        case unknown(Int64)
    }

    static func status(of database: SQLiteDatabase) throws -> Status {
        let version = try database.integerPragma("user_version")
        if version == 0 {
            let tables = try database.queryFirst("SELECT count(*) FROM sqlite_master") { $0.int(0) } ?? 0
            return tables == 0 ? .empty : .unknown(0)
        }
        if version == currentVersion { return .upToDate }
        if version > currentVersion { return .superseded(version) }
        if version < oldestVersion { return .unknown(version) }
        return .needsMigration(from: version)
    }

    /// Brings an empty or older store to the current version; each step is its own transaction.
    static func migrate(_ database: SQLiteDatabase, upTo target: Int64 = currentVersion) throws {
        let version = try database.integerPragma("user_version")
        for migration in migrations where migration.version > version && migration.version <= target {
            try database.execute("BEGIN IMMEDIATE")
            do {
                try database.execute(migration.sql)
                try database.execute("PRAGMA user_version = \(migration.version)")
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
        // v12 freed what the merged state took (as much as the data, with sync on): without a
        // compaction the file, which every raw archive copies, would stay that big.
        if version >= 9 && version < 12 && target >= 12 {
            let free = try database.integerPragma("freelist_count"), pages = try database.integerPragma("page_count")
            if free * 4 > pages { try database.execute("VACUUM") }
        }
    }
}
