/// What the store keeps for sync (schema v8, docs/sync.md): a global id on every category,
/// project and session, and `sync_dirty`, the records written since the last publish. The merged
/// state of the folder's records is rebuilt from the folder when sync starts (its files are never
/// rewritten or lost); `sync_dirty` is neither in the undo history nor in snapshots.
enum SyncStore {
    static let tables: Set<String> = Set(["sync_dirty"]).union(SyncReplicaStore.tables)

    /// While sync is on, triggers note the global id of every category, project and session
    /// written (a segment counts for its session), so that publishing reads only what changed.
    static func dirtyTriggers() -> String {
        let on = "WHEN (SELECT value FROM meta WHERE key = 'sync_folder') <> ''"
        var sql = ""
        for (table, kind) in [("categories", "category"), ("projects", "project"), ("sessions", "session")] {
            sql += """
                CREATE TRIGGER sync_dirty_\(table)_insert AFTER INSERT ON \(table) \(on)
                    BEGIN INSERT OR IGNORE INTO sync_dirty VALUES('\(kind)', NEW.gid); END;
                CREATE TRIGGER sync_dirty_\(table)_update AFTER UPDATE ON \(table) \(on)
                    BEGIN INSERT OR IGNORE INTO sync_dirty VALUES('\(kind)', NEW.gid);
                          INSERT OR IGNORE INTO sync_dirty VALUES('\(kind)', OLD.gid); END;
                CREATE TRIGGER sync_dirty_\(table)_delete AFTER DELETE ON \(table) \(on)
                    BEGIN INSERT OR IGNORE INTO sync_dirty VALUES('\(kind)', OLD.gid); END;

                """
        }
        for (event, row) in [("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")] {
            sql += """
                CREATE TRIGGER sync_dirty_segments_\(event.lowercased()) AFTER \(event) ON segments \(on)
                    BEGIN INSERT OR IGNORE INTO sync_dirty SELECT 'session', gid FROM sessions WHERE id = \(row).session_id AND gid IS NOT NULL; END;

                """
        }
        return sql
    }

    static var schema: String { schemaTables + dirtyTriggers() }

    private static let schemaTables = """
        ALTER TABLE categories ADD COLUMN gid TEXT;
        ALTER TABLE projects ADD COLUMN gid TEXT;
        ALTER TABLE sessions ADD COLUMN gid TEXT;
        UPDATE categories SET gid = lower(hex(randomblob(16)));
        UPDATE projects SET gid = lower(hex(randomblob(16)));
        UPDATE sessions SET gid = lower(hex(randomblob(16)));
        CREATE UNIQUE INDEX categories_by_gid ON categories(gid);
        CREATE UNIQUE INDEX projects_by_gid ON projects(gid);
        CREATE UNIQUE INDEX sessions_by_gid ON sessions(gid);
        CREATE TABLE sync_dirty(
            kind TEXT NOT NULL,
            gid TEXT NOT NULL,
            PRIMARY KEY(kind, gid)) WITHOUT ROWID;
        """
}

extension DataState {
    /// The state with a global id on every record that has none (one restored from a v7 or older snapshot).
    func withGlobalIDs() -> DataState {
        var state = self
        for index in state.categories.indices where state.categories[index].globalID.isEmpty {
            state.categories[index].globalID = SyncRecord.newID()
        }
        for index in state.projects.indices where state.projects[index].globalID.isEmpty {
            state.projects[index].globalID = SyncRecord.newID()
        }
        for index in state.sessions.indices where state.sessions[index].globalID.isEmpty {
            state.sessions[index].globalID = SyncRecord.newID()
        }
        return state
    }
}

extension Store {
    /// One category as stored, with the global id the store gave it.
    func category(id: Int64) throws -> Category? {
        try database.queryFirst("SELECT id, name, coalesce(gid, '') FROM categories WHERE id = ?", .integer(id)) {
            Category(id: $0.int(0), name: $0.string(1), globalID: $0.string(2))
        }
    }
}
