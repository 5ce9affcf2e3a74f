/// What the store keeps for sync (schema v8, docs/sync.md): a global id on every category,
/// project and session, and `sync_dirty`, the notes of what was written since the last publish
/// (from v10 each note names the field written, so that a record carries only the fields its
/// own change set). The merged state of the folder's records is kept apart (SyncReplicaStore);
/// `sync_dirty` is neither in the undo history nor in snapshots.
enum SyncStore {
    static let tables: Set<String> = Set(["sync_dirty"]).union(SyncReplicaStore.tables)

    /// A note's field for a row inserted (or given this global id) and for one deleted (or that
    /// lost this id); every other note names the sync field written (docs/sync.md, "A record").
    static let inserted = "+", deleted = "-"
    /// A note of the whole record, without saying which field (what v8 and v9 noted).
    static let wholeRecord = "*"

    /// The columns of each table and the sync field each one is.
    static let fieldsByColumn: [(table: String, kind: String, columns: [(column: String, field: String)])] = [
        ("categories", "category", [("name", "name")]),
        ("projects", "project", [("name", "name"), ("color", "color"), ("category_id", "category"), ("archived", "archived")]),
        ("sessions", "session", [("project_id", "project"), ("start", "start"), ("end", "end"), ("note", "note"),
                                 ("unrecorded_seconds", "unrecorded")]),
    ]

    /// While sync is on, triggers note every field of a category, project or session whose value
    /// changed (a segment counts as its session's `segments`), so that publishing compares just
    /// those fields, and only for the records written.
    static func noteTriggers(_ tables: [(table: String, kind: String, columns: [(column: String, field: String)])] = fieldsByColumn,
                             segments: Bool = true) -> String {
        let on = "WHEN (SELECT value FROM meta WHERE key = 'sync_folder') <> ''"
        var sql = ""
        for (table, kind, columns) in tables {
            let note = "INSERT OR IGNORE INTO sync_dirty SELECT '\(kind)'"
            sql += """
                CREATE TRIGGER sync_notes_\(table)_insert AFTER INSERT ON \(table) \(on)
                    BEGIN \(note), NEW.gid, '\(inserted)'; END;
                CREATE TRIGGER sync_notes_\(table)_delete AFTER DELETE ON \(table) \(on)
                    BEGIN \(note), OLD.gid, '\(deleted)'; END;
                CREATE TRIGGER sync_notes_\(table)_update AFTER UPDATE ON \(table) \(on)
                    BEGIN \(note), OLD.gid, '\(deleted)' WHERE OLD.gid IS NOT NEW.gid;
                          \(note), NEW.gid, '\(inserted)' WHERE OLD.gid IS NOT NEW.gid;

                """
            for (column, field) in columns {
                sql += "      \(note), NEW.gid, '\(field)' WHERE OLD.\(column) IS NOT NEW.\(column);\n"
            }
            sql += "    END;\n"
        }
        guard segments else { return sql }
        for (event, rows) in [("INSERT", ["NEW"]), ("UPDATE", ["OLD", "NEW"]), ("DELETE", ["OLD"])] {
            let notes = rows.map {
                "INSERT OR IGNORE INTO sync_dirty SELECT 'session', gid, 'segments' FROM sessions WHERE id = \($0).session_id AND gid IS NOT NULL;"
            }
            sql += """
                CREATE TRIGGER sync_notes_segments_\(event.lowercased()) AFTER \(event) ON segments \(on)
                    BEGIN \(notes.joined(separator: " ")) END;

                """
        }
        return sql
    }

    /// v8: global ids, and notes of the records written (one per record).
    static var schema: String { schemaTables + legacyTriggers() }

    /// v10: the notes name the field written; the v8 triggers go. A record noted before (not
    /// published yet) is compared whole, as it would have been.
    static var fieldNotesSchema: String {
        var sql = ""
        for table in ["categories", "projects", "sessions", "segments"] {
            for event in ["insert", "update", "delete"] { sql += "DROP TRIGGER IF EXISTS sync_dirty_\(table)_\(event);\n" }
        }
        return sql + """
            CREATE TABLE sync_notes(
                kind TEXT NOT NULL,
                gid TEXT NOT NULL,
                field TEXT NOT NULL,
                PRIMARY KEY(kind, gid, field)) WITHOUT ROWID;
            INSERT INTO sync_notes SELECT kind, gid, '\(wholeRecord)' FROM sync_dirty;
            DROP TABLE sync_dirty;
            ALTER TABLE sync_notes RENAME TO sync_dirty;

            """ + noteTriggers()
    }

    /// Forgets what the notes say: after a roll-forward, whose writes put back an acknowledged
    /// state, not a change of the person's (what this device changed in it is in its log already).
    static func forgetNotes(in store: Store) throws {
        try store.database.execute("DELETE FROM sync_dirty")
    }

    /// The keys of `meta` that are sync's: this device's id and name, the folder, what was
    /// published, the positions, the folder of the merged state kept and the projects folded.
    static let settingsKeys = ["sync_device", "sync_name", "sync_folder", SyncEngine.publishedKey, SyncPositions.key,
                               SyncReplicaStore.rootKey, SyncMaterializer.foldedKey, SyncMaterializer.orphansKey]

    static func settings(of store: Store) throws -> [(String, String)] {
        try settingsKeys.compactMap { key in try store.meta(key).map { (key, $0) } }
    }

    /// Runs `body` (a merge's writes) so that it leaves the notes as they were: what the merge
    /// writes is derived from other devices' records, and a note of it could be published.
    static func keepingNotes(in store: Store, _ body: () throws -> Void) throws {
        let waiting = try store.database.query("SELECT kind, gid, field FROM sync_dirty") { [$0.string(0), $0.string(1), $0.string(2)] }
        try body()
        try store.database.execute("DELETE FROM sync_dirty")
        for note in waiting {
            try store.database.run("INSERT OR IGNORE INTO sync_dirty(kind, gid, field) VALUES(?, ?, ?)", .text(note[0]), .text(note[1]), .text(note[2]))
        }
    }

    /// The notes as schema v8 took them (the record, not the field): migration v10 replaces them.
    static func legacyTriggers() -> String {
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
