/// What the store keeps for sync (schema v8, docs/sync.md): a global id on every category,
/// project and session, the merged state of every entity seen in the folder, and how far each
/// device's files have been read. The two sync tables are not part of the undo history and not
/// of snapshots: they are rebuilt from the folder, whose files are never lost or rewritten.
enum SyncStore {
    static let tables: Set<String> = ["sync_entities", "sync_cursors"]

    static let schema = """
        ALTER TABLE categories ADD COLUMN gid TEXT;
        ALTER TABLE projects ADD COLUMN gid TEXT;
        ALTER TABLE sessions ADD COLUMN gid TEXT;
        UPDATE categories SET gid = lower(hex(randomblob(16)));
        UPDATE projects SET gid = lower(hex(randomblob(16)));
        UPDATE sessions SET gid = lower(hex(randomblob(16)));
        CREATE UNIQUE INDEX categories_by_gid ON categories(gid);
        CREATE UNIQUE INDEX projects_by_gid ON projects(gid);
        CREATE UNIQUE INDEX sessions_by_gid ON sessions(gid);
        CREATE TABLE sync_entities(
            kind TEXT NOT NULL,
            gid TEXT NOT NULL,
            state TEXT NOT NULL,
            PRIMARY KEY(kind, gid));
        CREATE TABLE sync_cursors(
            device TEXT PRIMARY KEY,
            file INTEGER NOT NULL,
            byte_offset INTEGER NOT NULL,
            next_sequence INTEGER NOT NULL);
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
