import CSQLite

/// Records the rows one change writes, through SQLite's pre-update hook, and gives them as a
/// changeset in SQLite's own binary format, so `Changeset` inverts, reads and applies it as it
/// always did and the steps already in a store stay as they are.
///
/// SQLite's session extension did this job until round four of #33. Asked for the changeset, it
/// read every touched row back: a SAVEPOINT and a SELECT prepared per table, about 150,000
/// instructions a change. The hook already sees each row as it was and as it becomes, so nothing
/// is read back here.
///
/// The rules are the session extension's, so a step means what it meant:
/// - a row is known by its table's primary key; tables without one are not recorded, nor rows
///   whose key holds a NULL, nor any database but `main`;
/// - a row's first write keeps it as it was, its last write as it is;
/// - inserted then deleted leaves nothing; deleted then inserted again is an update; an update
///   that ends where it began leaves nothing; an update of the key deletes one row and inserts
///   another;
/// - an update carries the key and the changed columns; a change is indirect (made by a trigger
///   or a foreign-key action) only if every write to its row was.
/// ChangeRecordingTests records the same writes with both and compares them.
final class ChangeRecording {
    private let database: SQLiteDatabase
    private let keys: TableKeys
    /// Every row's fields as it was before and as it is after, one record after another: a row
    /// costs its bytes and no allocation of its own (an import of 100,000 sessions records
    /// 200,000 rows in one step).
    private var arena = FieldArena()
    private var indexOfRow: [RowKey: Int] = [:]
    private var rows: [RowWrites] = []
    /// Tables in the order they were first written, as the session extension lists them.
    private var tables: [String] = []
    private var indexOfTable: [String: Int] = [:]
    private var failure: String?
    private var installed = true

    /// Starts recording every write of `database`; `keys` says which tables are recorded.
    init(database: SQLiteDatabase, keys: TableKeys) throws {
        self.database = database
        self.keys = keys
        try keys.refresh()
        sqlite3_preupdate_hook(database.handle, changeRecordingHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Stops recording (the hook is removed: with none, SQLite may truncate a table at once).
    func stop() {
        guard installed else { return }
        installed = false
        let previous = sqlite3_preupdate_hook(database.handle, nil, nil)
        // Another recording took the hook meanwhile: it keeps it.
        if let previous, previous != Unmanaged.passUnretained(self).toOpaque() {
            sqlite3_preupdate_hook(database.handle, changeRecordingHook, previous)
        }
    }

    deinit { stop() }

    fileprivate func rowWillChange(_ db: OpaquePointer, _ operation: Int32, _ name: String) {
        guard failure == nil, let columns = keys.columns(of: name) else { return }
        guard Int(sqlite3_preupdate_count(db)) == columns.primaryKey.count else {
            failure = "the columns of \(name) changed during the change"
            return
        }
        let table: Int
        if let known = indexOfTable[name] {
            table = known
        } else {
            table = tables.count
            tables.append(name)
            indexOfTable[name] = table
        }
        let indirect = sqlite3_preupdate_depth(db) > 0
        let old = operation == SQLITE_INSERT ? nil : arena.append(columns.real) { sqlite3_preupdate_old(db, $0, $1) }
        let new = operation == SQLITE_DELETE ? nil : arena.append(columns.real) { sqlite3_preupdate_new(db, $0, $1) }
        let oldKey = old.flatMap { RowKey(table: table, record: $0, in: arena, keyColumns: columns.keyColumns) }
        let newKey = new.flatMap { RowKey(table: table, record: $0, in: arena, keyColumns: columns.keyColumns) }
        if let oldKey, oldKey == newKey {
            write(oldKey, before: old, after: new, indirect: indirect)
            return
        }
        // An insert, a delete, or an update that moved the row to another key.
        if let oldKey { write(oldKey, before: old, after: nil, indirect: indirect) }
        if let newKey { write(newKey, before: nil, after: new, indirect: indirect) }
    }

    private func write(_ key: RowKey, before: Range<Int>?, after: Range<Int>?, indirect: Bool) {
        if let index = indexOfRow[key] {
            rows[index].after = after
            if !indirect { rows[index].indirect = false }
            return
        }
        indexOfRow[key] = rows.count
        rows.append(RowWrites(table: key.table, indirect: indirect, before: before, after: after))
    }

    /// Everything written since the recording began, in SQLite's changeset format.
    func changeset() throws -> Changeset {
        if let failure { throw SQLiteError(code: SQLITE_SCHEMA, message: "could not take the changeset of a change: \(failure)") }
        var out = ChangesetWriter()
        for (table, name) in tables.enumerated() {
            guard let primaryKey = keys.columns(of: name)?.primaryKey else { continue }
            out.beginTable(name, primaryKey: primaryKey)
            for row in rows where row.table == table {
                switch (row.before, row.after) {
                case (nil, nil): continue
                case (nil, let after?): out.insert(arena.bytes[after], indirect: row.indirect)
                case (let before?, nil): out.delete(arena.bytes[before], indirect: row.indirect)
                case (let before?, let after?):
                    out.update(from: arena.fields(of: before), to: arena.fields(of: after), primaryKey: primaryKey, indirect: row.indirect)
                }
            }
            out.endTable()
        }
        return Changeset(bytes: out.bytes)
    }
}

private func changeRecordingHook(_ context: UnsafeMutableRawPointer?, _ db: OpaquePointer?, _ operation: Int32,
                                 _ schema: UnsafePointer<CChar>?, _ table: UnsafePointer<CChar>?, _: Int64, _: Int64) {
    guard let context, let db, let schema, let table, isMain(schema) else { return }
    Unmanaged<ChangeRecording>.fromOpaque(context).takeUnretainedValue().rowWillChange(db, operation, String(cString: table))
}

/// True for "main"; reads no byte past the name's NUL (the first difference ends the compare).
private func isMain(_ schema: UnsafePointer<CChar>) -> Bool {
    for (index, byte) in "main\0".utf8.enumerated() where schema[index] != CChar(bitPattern: byte) { return false }
    return true
}

/// One row's writes during the recording: where its fields are as it was before the first (nil:
/// it did not exist) and as it is after the last (nil: it no longer exists).
private struct RowWrites {
    let table: Int
    var indirect: Bool
    let before: Range<Int>?
    var after: Range<Int>?
}

/// A row's identity: its table and its primary key, a single integer key without an allocation.
private enum RowKey: Hashable {
    case integer(table: Int, Int64)
    case encoded(table: Int, [UInt8])

    var table: Int {
        switch self {
        case .integer(let table, _), .encoded(let table, _): return table
        }
    }

    /// Nil when the key holds a NULL (such a row is not recorded).
    init?(table: Int, record: Range<Int>, in arena: FieldArena, keyColumns: [Int]) {
        if keyColumns.count == 1 {
            let field = arena.field(keyColumns[0], of: record)
            if arena.bytes[field.lowerBound] == FieldArena.nullType { return nil }
            if let value = arena.integer(field) {
                self = .integer(table: table, value)
                return
            }
        }
        var key: [UInt8] = []
        for column in keyColumns {
            let field = arena.field(column, of: record)
            if arena.bytes[field.lowerBound] == FieldArena.nullType { return nil }
            key.append(contentsOf: arena.bytes[field])
        }
        self = .encoded(table: table, key)
    }
}

/// Rows' values encoded as the changeset format's fields, one row after another.
struct FieldArena {
    static let undefined: UInt8 = 0
    static let nullType: UInt8 = 5
    private(set) var bytes: [UInt8] = []

    /// Appends one row read through `value` and returns where it is. `real`: per column, whether
    /// it has REAL affinity. SQLite stores such a column's whole numbers as integers and turns them
    /// back into reals when it reads them; the hook's new values come before that turn, so it is
    /// made here (as a SELECT would read the row).
    mutating func append(_ real: [Bool], value: (Int32, UnsafeMutablePointer<OpaquePointer?>) -> Int32) -> Range<Int> {
        let start = bytes.count
        for column in real.indices {
            var pointer: OpaquePointer?
            if value(Int32(column), &pointer) == SQLITE_OK, let pointer {
                ChangesetWriter.appendField(pointer, realAffinity: real[column], to: &bytes)
            } else {
                bytes.append(FieldArena.undefined)
            }
        }
        return start..<bytes.count
    }

    /// Where the record's field of `column` is.
    func field(_ column: Int, of record: Range<Int>) -> Range<Int> {
        var at = record.lowerBound
        for _ in 0..<column { at += fieldLength(at) }
        return at..<(at + fieldLength(at))
    }

    /// Where each of the record's fields is.
    func fields(of record: Range<Int>) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var at = record.lowerBound
        while at < record.upperBound {
            let end = at + fieldLength(at)
            result.append(bytes[at..<end])
            at = end
        }
        return result
    }

    /// An integer field's value.
    func integer(_ field: Range<Int>) -> Int64? {
        guard bytes[field.lowerBound] == UInt8(SQLITE_INTEGER) else { return nil }
        var value: UInt64 = 0
        for byte in bytes[(field.lowerBound + 1)..<field.upperBound] { value = value << 8 | UInt64(byte) }
        return Int64(bitPattern: value)
    }

    private func fieldLength(_ at: Int) -> Int {
        switch Int32(bytes[at]) {
        case SQLITE_INTEGER, SQLITE_FLOAT: return 9
        case SQLITE_TEXT, SQLITE_BLOB:
            let (length, size) = ChangesetWriter.varint(in: bytes, at: at + 1)
            return 1 + size + Int(length)
        default: return 1
        }
    }
}

/// What a recording needs to know of each table it may write: which columns make up the primary
/// key, which have REAL affinity. Read again when the schema changes (`PRAGMA schema_version`),
/// never inside the hook.
final class TableKeys {
    struct Columns {
        var primaryKey: [Bool] = []
        var real: [Bool] = []
        /// The primary key's columns.
        var keyColumns: [Int] = []
    }

    private let database: SQLiteDatabase
    private let excluded: Set<String>
    private var schemaVersion: Int64?
    private var tables: [String: Columns] = [:]
    /// Whether the schema holds triggers that write rows no step records (sync's `sync_notes_…`,
    /// present while sync is on): a change then writes more than its changeset can take back.
    private(set) var triggersWriteUnrecordedRows = true

    init(database: SQLiteDatabase, excluding excluded: Set<String>) {
        self.database = database
        self.excluded = excluded
    }

    /// Nil for a table not recorded.
    func columns(of table: String) -> Columns? { tables[table] }

    func refresh() throws {
        let version = try database.integerPragma("schema_version")
        guard version != schemaVersion else { return }
        let columns = try database.query("""
            SELECT m.name, p.pk, p.type FROM sqlite_master AS m, pragma_table_info(m.name) AS p
            WHERE m.type = 'table' ORDER BY m.name, p.cid
            """) { ($0.string(0), $0.int(1) > 0, $0.string(2)) }
        var tables: [String: Columns] = [:]
        for (table, isKey, type) in columns where !excluded.contains(table) {
            tables[table, default: Columns()].primaryKey.append(isKey)
            tables[table, default: Columns()].real.append(TableKeys.hasRealAffinity(declaredType: type))
        }
        // A table without a primary key is not recorded (as the session extension did not).
        self.tables = tables.compactMapValues { found in
            var columns = found
            columns.keyColumns = found.primaryKey.indices.filter { found.primaryKey[$0] }
            return columns.keyColumns.isEmpty ? nil : columns
        }
        triggersWriteUnrecordedRows = try !SyncTriggers.present(in: database).isEmpty
        schemaVersion = version
    }

    /// SQLite's rules for a column's affinity from its declared type (datatype3.html, 3.1), in
    /// their order: INT first, then CHAR, CLOB or TEXT, then BLOB or none, then REAL, FLOA, DOUB.
    static func hasRealAffinity(declaredType: String) -> Bool {
        let type = declaredType.uppercased()
        if type.contains("INT") || type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return false }
        if type.isEmpty || type.contains("BLOB") { return false }
        return type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB")
    }
}
