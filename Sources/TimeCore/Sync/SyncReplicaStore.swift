import Glibc

/// The merged state of the folder's records, kept so that a start reads only what was appended
/// since, not every device's whole log, and memory does not grow with the history (docs/sync.md,
/// "Start-up"). It is derived data: neither in snapshots nor in the undo history, and rebuilt
/// from the folder whenever it cannot be trusted (another folder, a store restored from a
/// snapshot, positions that do not match the files, a token that is not the store's).
///
/// Since schema v12 it lives in a file of its own beside the store (`time-sync.sqlite` beside
/// `time.sqlite`), so that the store stays the size of the data and a start's `quick_check` and
/// raw archive do not read it (v9–v11 kept it in the store, which doubled it). A commit across two
/// WAL files is not atomic, so each save gives the kept state a new random token, committed in
/// this file first and then in the store's `meta` (`sync_replica`, with the folder root), inside
/// the store's own transaction: a start takes the kept state only when both say the same token.
/// Each file keeps a prefix of its commits after a power cut, so equal tokens mean both kept the
/// same save; any other outcome is a mismatch, and the state is rebuilt from the folder.
final class SyncReplicaStore {
    /// Where the tables are: the file beside the store, or a database given whole (tests).
    let database: SQLiteDatabase
    /// The store, whose `meta` holds the token of the kept state it goes with; nil for a database given whole.
    private let store: SQLiteDatabase?

    init(database: SQLiteDatabase) {
        self.database = database
        store = nil
    }

    private init(database: SQLiteDatabase, store: SQLiteDatabase) {
        self.database = database
        self.store = store
    }

    static let tables: Set<String> = ["sync_entities", "sync_devices", "sync_kept"]

    static let schema = schema(in: "")

    /// The tables, in the database attached as `prefix` ("" for the connection's own).
    static func schema(in prefix: String) -> String {
        let p = prefix.isEmpty ? "" : prefix + "."
        return """
            CREATE TABLE IF NOT EXISTS \(p)sync_entities(
                kind TEXT NOT NULL,
                id TEXT NOT NULL,
                open INTEGER NOT NULL,
                state TEXT NOT NULL,
                PRIMARY KEY(kind, id)) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS \(p)sync_entities_open ON sync_entities(kind) WHERE open = 1;
            CREATE TABLE IF NOT EXISTS \(p)sync_devices(
                device TEXT PRIMARY KEY,
                applied_through INTEGER NOT NULL,
                applied_extra TEXT NOT NULL,
                newest_time INTEGER NOT NULL,
                newest_counter INTEGER NOT NULL) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS \(p)sync_kept(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
            """
    }

    /// v9's tables, kept in the store until v12 moved them out (`Schema`).
    static let storeSchemaV9 = """
        CREATE TABLE sync_entities(
            kind TEXT NOT NULL,
            id TEXT NOT NULL,
            open INTEGER NOT NULL,
            state TEXT NOT NULL,
            PRIMARY KEY(kind, id)) WITHOUT ROWID;
        CREATE INDEX sync_entities_open ON sync_entities(kind) WHERE open = 1;
        CREATE TABLE sync_devices(
            device TEXT PRIMARY KEY,
            applied_through INTEGER NOT NULL,
            applied_extra TEXT NOT NULL,
            newest_time INTEGER NOT NULL,
            newest_counter INTEGER NOT NULL) WITHOUT ROWID;
        """

    /// v12: the merged state leaves the store for its own file. `copyOutOfStore` has copied it
    /// there just before, with a token in both; where it could not, `sync_replica` still holds a
    /// bare folder root, which is no file's token: the next start rebuilds from the folder.
    static let storeSchemaV12 = """
        DROP TABLE IF EXISTS sync_entities;
        DROP TABLE IF EXISTS sync_devices;
        """

    /// Before migration v12: copies the merged state a v9–v11 store kept into the file beside it,
    /// in one transaction over both (SQLite streams it: memory does not grow with it), and gives
    /// both the same new token. Atomic in each file but not across the two, like every save: a
    /// power cut that keeps one side leaves tokens that differ, and the start rebuilds.
    static func copyOutOfStore(_ store: SQLiteDatabase, storePath: String) throws {
        let version = try store.integerPragma("user_version")
        guard (9..<12).contains(version),
              let root = try store.queryFirst("SELECT value FROM meta WHERE key = ?", .text(rootKey), row: { $0.string(0) })
        else { return }
        let path = SyncReplicaStore.path(besideStore: storePath)
        for suffix in ["", "-wal", "-shm", "-journal"] { Files.remove(path + suffix) }
        // Made by a connection of its own (the store's was opened without the right to create
        // files, which an attached database inherits), in WAL mode, private.
        do {
            let file = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            try file.execute("PRAGMA journal_mode = WAL")
            try file.execute(schema)
        }
        for suffix in ["", "-wal", "-shm"] where Files.kind(path + suffix) == .regular { Files.makePrivate(path + suffix) }
        try store.run("ATTACH DATABASE ? AS kept", .text(path))
        defer { try? store.execute("DETACH DATABASE kept") }
        let token = SyncRecord.newID() + " " + root
        try store.execute("BEGIN IMMEDIATE")
        do {
            try store.execute("""
                INSERT INTO kept.sync_entities SELECT kind, id, open, state FROM main.sync_entities;
                INSERT INTO kept.sync_devices SELECT device, applied_through, applied_extra, newest_time, newest_counter FROM main.sync_devices;
                """)
            try store.run("INSERT OR REPLACE INTO kept.sync_kept(key, value) VALUES('token', ?)", .text(token))
            try store.run("UPDATE main.meta SET value = ? WHERE key = ?", .text(token), .text(rootKey))
            try store.execute("COMMIT")
        } catch {
            try? store.execute("ROLLBACK")
            throw error
        }
    }

    /// The file beside a store file: `time.sqlite` → `time-sync.sqlite`.
    static func path(besideStore path: String) -> String {
        (path.hasSuffix(".sqlite") ? String(path.dropLast(".sqlite".count)) : path) + "-sync.sqlite"
    }

    /// Opens (or creates) the file beside the store. One that cannot be opened is derived data:
    /// it is removed and made anew (and its state rebuilt from the folder, since its token is gone).
    static func beside(_ store: Store) throws -> SyncReplicaStore {
        let storePath = try store.database.queryFirst("PRAGMA database_list") { $0.string(2) } ?? ""
        guard !storePath.isEmpty else {
            let memory = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate)
            try memory.execute(schema)
            return SyncReplicaStore(database: memory, store: store.database)
        }
        let path = SyncReplicaStore.path(besideStore: storePath)
        func open() throws -> SQLiteDatabase {
            let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            try database.execute("PRAGMA journal_mode = WAL")
            try database.execute("PRAGMA synchronous = NORMAL")
            // Enabling or joining writes it by the megabyte: checkpoints of 1 MiB (not SQLite's 4)
            // keep each one short enough for a call waiting behind a batch.
            try database.execute("PRAGMA wal_autocheckpoint = 256")
            try database.execute(schema)
            for suffix in ["", "-wal", "-shm"] where Files.kind(path + suffix) == .regular { Files.makePrivate(path + suffix) }
            return database
        }
        do {
            return SyncReplicaStore(database: try open(), store: store.database)
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { Files.remove(path + suffix) }
            return SyncReplicaStore(database: try open(), store: store.database)
        }
    }

    /// Meta key (in the store): the token and the folder root of the kept state it goes with.
    static let rootKey = "sync_replica"

    private func kept() throws -> String? {
        try database.queryFirst("SELECT value FROM sync_kept WHERE key = 'token'") { $0.string(0) }
    }

    /// The folder root whose records the kept state holds, when the store and the file agree.
    func root() throws -> String? {
        guard let mine = try kept(), let space = mine.firstIndex(of: " ") else { return nil }
        if let store {
            let theirs = try store.queryFirst("SELECT value FROM meta WHERE key = ?", .text(SyncReplicaStore.rootKey)) { $0.string(0) }
            guard theirs == mine else { return nil }
        }
        return String(mine[mine.index(after: space)...])
    }

    /// Runs `body` (the writes of a save) in a transaction of the file, then commits it with a new
    /// token, which goes into the store's `meta` in the store's transaction under way (committed
    /// after this one). A file that cannot be written is not the truth any more: the store's
    /// token is removed, so the next start rebuilds, and the change goes on without it.
    func save(root: String, _ body: () throws -> Void) throws {
        var token: String?
        do {
            try database.execute("BEGIN IMMEDIATE")
            do {
                try body()
                token = unreadable == nil ? SyncRecord.newID() + " " + root : nil
                if let token {
                    try database.run("INSERT OR REPLACE INTO sync_kept(key, value) VALUES('token', ?)", .text(token))
                } else {
                    try database.execute("DELETE FROM sync_kept")
                }
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        } catch let error as SQLiteError {
            unreadable = "the file of the merged state could not be written (\(error.message))"
            token = nil
        }
        try setStoreToken(token)
    }

    private func setStoreToken(_ token: String?) throws {
        guard let store else { return }
        if let token {
            try store.run("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", .text(SyncReplicaStore.rootKey), .text(token))
        } else {
            try store.run("DELETE FROM meta WHERE key = ?", .text(SyncReplicaStore.rootKey))
        }
    }

    /// Forgets everything (another folder, or positions that no longer match the files).
    func reset(root: String) throws {
        unreadable = nil
        try save(root: root) { try database.execute("DELETE FROM sync_entities; DELETE FROM sync_devices; DELETE FROM sync_kept WHERE key IN ('newer', 'rebuilding')") }
    }

    // MARK: Entities

    /// Why a row could not be read back (a read error, a damaged row): from then on the kept
    /// state is not trusted, and the next write forgets it instead (the next start rebuilds).
    private(set) var unreadable: String?

    /// Nil when the entity has no row, or its row could not be read (then `unreadable` says why).
    func entity(_ kind: SyncKind, _ id: String) -> SyncEntity? {
        do {
            guard let text = try database.queryFirst("SELECT state FROM sync_entities WHERE kind = ? AND id = ?",
                                                     .text(kind.rawValue), .text(id), row: { $0.string(0) }) else { return nil }
            return decoded(kind: kind, id: id, text)
        } catch {
            unreadable = "\(error)"
            return nil
        }
    }

    func entities(_ kind: SyncKind) throws -> [SyncEntity] {
        try database.query("SELECT id, state FROM sync_entities WHERE kind = ?", .text(kind.rawValue)) { ($0.string(0), $0.string(1)) }
            .compactMap { decoded(kind: kind, id: $0.0, $0.1) }
    }

    func openSessions() throws -> [SyncEntity] {
        try database.query("SELECT id, state FROM sync_entities WHERE kind = 'session' AND open = 1") { ($0.string(0), $0.string(1)) }
            .compactMap { decoded(kind: .session, id: $0.0, $0.1) }
    }

    private func decoded(kind: SyncKind, id: String, _ text: String) -> SyncEntity? {
        guard let entity = SyncReplicaStore.decode(kind: kind, id: id, text) else {
            unreadable = "the row of \(kind.rawValue) \(id) in sync_entities is damaged"
            return nil
        }
        return entity
    }

    /// Remembers that a read of the kept state failed (see `unreadable`).
    func noteUnreadable(_ error: Error) { unreadable = "\(error)" }

    /// Forgets the kept state and the positions that go with it, so that the next start rebuilds
    /// it from the folder and compares every record with the store (a record applied to a damaged
    /// entity may not have been written into the store). Inside `save`, whose token it leaves out.
    func forget() throws {
        try database.execute("DELETE FROM sync_entities; DELETE FROM sync_devices; DELETE FROM sync_kept WHERE key IN ('newer', 'rebuilding')")
        try store?.run("DELETE FROM meta WHERE key = ?", .text(SyncPositions.key))
    }

    func write(_ entity: SyncEntity) throws {
        try database.run("INSERT OR REPLACE INTO sync_entities(kind, id, open, state) VALUES(?, ?, ?, ?)",
                         .text(entity.kind.rawValue), .text(entity.id), .integer(entity.isOpenSession ? 1 : 0),
                         .text(SyncReplicaStore.encode(entity)))
    }

    // MARK: Devices

    func devices() throws -> [(String, AppliedSequences, HLC)] {
        try database.query("SELECT device, applied_through, applied_extra, newest_time, newest_counter FROM sync_devices") { row in
            let extra = (try? JSON.parse(row.string(2)))?.arrayValue?.compactMap(\.intValue) ?? []
            return (row.string(0), AppliedSequences(through: row.int(1), extra: Set(extra)), HLC(time: row.int(3), counter: row.int(4)))
        }
    }

    func writeDevice(_ device: String, applied: AppliedSequences, newest: HLC) throws {
        let extra = JSON.array(applied.extra.sorted().map(JSON.int)).serialized
        try database.run("""
            INSERT OR REPLACE INTO sync_devices(device, applied_through, applied_extra, newest_time, newest_counter)
            VALUES(?, ?, ?, ?, ?)
            """, .text(device), .integer(applied.through), .text(extra), .integer(newest.time), .integer(newest.counter))
    }

    // MARK: The form of a row

    /// `{"s":[stamp…],"c":index,"d":index,"f":{field:[value,index]}}`: every distinct stamp once
    /// (a stamp is `[time,counter,device,seq]`; most fields share the one of their `create`),
    /// then the created and deleted stamps and each field's by their place in "s" (or null).
    static func encode(_ entity: SyncEntity) -> String {
        var stamps: [SyncStamp] = []
        func index(_ stamp: SyncStamp) -> Int {
            if let found = stamps.firstIndex(of: stamp) { return found }
            stamps.append(stamp)
            return stamps.count - 1
        }
        let created = entity.created.map(index), deleted = entity.deleted.map(index)
        let fields = entity.fields.map { ($0.key, $0.value.value, index($0.value.stamp)) }
        var out: [UInt8] = []
        out.reserveCapacity(384)
        out += #"{"s":["#.utf8
        for (position, stamp) in stamps.enumerated() {
            out += (position == 0 ? "[" : ",[").utf8
            JSON.writeDecimal(stamp.hlc.time, to: &out)
            out.append(0x2c)
            JSON.writeDecimal(stamp.hlc.counter, to: &out)
            out.append(0x2c)
            JSON.writeString(stamp.device, to: &out)
            out.append(0x2c)
            JSON.writeDecimal(stamp.sequence, to: &out)
            out.append(0x5d)
        }
        func write(_ index: Int?) {
            if let index { JSON.writeDecimal(Int64(index), to: &out) } else { out += "null".utf8 }
        }
        out += #"],"c":"#.utf8
        write(created)
        out += #","d":"#.utf8
        write(deleted)
        out += #","f":{"#.utf8
        for (position, (key, value, stamp)) in fields.enumerated() {
            if position > 0 { out.append(0x2c) }
            JSON.writeString(key, to: &out)
            out += ":[".utf8
            value.write(to: &out)
            out.append(0x2c)
            write(stamp)
            out.append(0x5d)
        }
        out += "}}".utf8
        return String(decoding: out, as: UTF8.self)
    }

    /// The entity of a row; nil when the row is not in the form `encode` writes.
    static func decode(kind: SyncKind, id: String, _ text: String) -> SyncEntity? {
        guard let value = try? JSON.parse(text), let list = value["s"]?.arrayValue, case .object(let members)? = value["f"] else { return nil }
        var stamps: [SyncStamp] = []
        for item in list {
            guard let parts = item.arrayValue, parts.count == 4, let time = parts[0].intValue, let counter = parts[1].intValue,
                  let device = parts[2].stringValue, let sequence = parts[3].intValue else { return nil }
            stamps.append(SyncStamp(hlc: HLC(time: time, counter: counter), device: device, sequence: sequence))
        }
        func stamp(_ value: JSON?) -> SyncStamp?? {
            guard let value, !value.isNull else { return .some(nil) }
            guard let index = value.intValue, stamps.indices.contains(Int(index)) else { return nil }
            return stamps[Int(index)]
        }
        var fields: [String: (value: JSON, stamp: SyncStamp)] = [:]
        for (key, entry) in members {
            guard let items = entry.arrayValue, items.count == 2, let kept = stamp(items[1]) ?? nil else { return nil }
            fields[key] = (items[0], kept)
        }
        guard let created = stamp(value["c"]), let deleted = stamp(value["d"]) else { return nil }
        return SyncEntity(kind: kind, id: id, fields: fields, created: created, deleted: deleted)
    }
}
