/// Sync's triggers (`sync_notes_…`: SyncStore's, SyncPlans' and the focus column's) note what a
/// change writes while sync is on. Every row a change writes runs its table's trigger, which
/// reads `sync_folder` to find sync off, and an UPDATE with a trigger cannot be done in one pass:
/// a Pause's one UPDATE took twice the instructions with its trigger. So with sync off they are
/// not in the store at all, and with sync on they are all there (`matchSyncSetting`, at every
/// open of a store); the change that sets a sync folder (`enableSync`, a sync engine's start)
/// makes them first, before anything else is written, and `disableSync` drops them. Their WHEN
/// clauses stay and still decide: a trigger present while sync is off notes nothing. A migration
/// that touches one says `IF EXISTS`.
enum SyncTriggers {
    /// How many a store with sync on holds: v10's twelve, v13's of a session's focus phases and
    /// v14's three of the shared settings. Counted here so that a start with sync on does not
    /// migrate a store in memory to find out; SyncTriggersTests holds it to `definitions()`.
    static let count = 16

    /// The triggers' names and definitions as the migrations leave them in a new store.
    static func definitions() throws -> [(name: String, sql: String)] {
        if let made = madeDefinitions { return made }
        let database = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate)
        try Schema.migrate(database)
        let made = try present(in: database)
        madeDefinitions = made
        return made
    }

    nonisolated(unsafe) private static var madeDefinitions: [(name: String, sql: String)]?

    static func present(in database: SQLiteDatabase) throws -> [(name: String, sql: String)] {
        try database.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND substr(name, 1, 11) = 'sync_notes_' ORDER BY name") {
            ($0.string(0), $0.string(1))
        }
    }

    /// Inside the caller's transaction: makes the ones missing.
    static func make(in store: Store) throws {
        let present = Set(try present(in: store.database).map(\.name))
        for trigger in try definitions() where !present.contains(trigger.name) {
            try store.database.execute(trigger.sql)
        }
    }

    /// Inside the caller's transaction: drops the ones present.
    static func drop(in store: Store) throws {
        for trigger in try present(in: store.database) { try store.database.execute("DROP TRIGGER IF EXISTS \(trigger.name)") }
    }

    /// At a store's open: drops them when no sync folder is set, makes any missing when one is.
    /// Only a failure to make them throws (sync would miss what changes note): triggers that
    /// cannot be dropped stay and note nothing.
    static func matchSyncSetting(_ store: Store) throws {
        let syncOn = !(try store.meta("sync_folder") ?? "").isEmpty
        let present = try present(in: store.database)
        if syncOn ? present.count == count : present.isEmpty { return }
        try store.database.execute("BEGIN IMMEDIATE")
        do {
            if syncOn { try make(in: store) } else { try drop(in: store) }
            try store.database.execute("COMMIT")
        } catch {
            try? store.database.execute("ROLLBACK")
            if syncOn { throw error }
        }
    }
}
