import CSQLite

/// A changeset in SQLite's own binary format (the session extension's), and what the session
/// extension does with one: invert it, read its rows, apply it. `ChangeRecording` makes them; the
/// undo history is built on them, so any change to any table becomes undoable without code of its
/// own.

/// A changeset's bytes (SQLite's own binary format).
struct Changeset: Equatable {
    var bytes: [UInt8]

    var isEmpty: Bool { bytes.isEmpty }

    /// The changeset that undoes this one.
    func inverted() throws -> Changeset {
        guard !bytes.isEmpty else { return self }
        var size: Int32 = 0
        var buffer: UnsafeMutableRawPointer?
        let rc = bytes.withUnsafeBytes { raw in
            sqlite3changeset_invert(Int32(raw.count), UnsafeMutableRawPointer(mutating: raw.baseAddress), &size, &buffer)
        }
        defer { sqlite3_free(buffer) }
        guard rc == SQLITE_OK else { throw SQLiteError(code: rc, message: "could not invert a changeset") }
        guard let buffer, size > 0 else { return Changeset(bytes: []) }
        return Changeset(bytes: Array(UnsafeRawBufferPointer(start: buffer, count: Int(size))))
    }

    /// One row change, read from the changeset.
    struct RowChange {
        enum Operation { case insert, update, delete }
        var table: String
        var operation: Operation
        /// Values before the change (nil for an insert; for an update, nil where the column did not change).
        var old: [SQLValue?]
        /// Values after the change (nil for a delete; for an update, nil where the column did not change).
        var new: [SQLValue?]

        /// The column's value after the change, else before it.
        func value(_ column: Int) -> SQLValue? {
            if column < new.count, let value = new[column] { return value }
            if column < old.count, let value = old[column] { return value }
            return nil
        }
    }

    /// Every row change, in the changeset's order.
    func rows() throws -> [RowChange] {
        guard !bytes.isEmpty else { return [] }
        var copy = bytes
        return try copy.withUnsafeMutableBytes { raw -> [RowChange] in
            var iterator: OpaquePointer?
            let started = sqlite3changeset_start(&iterator, Int32(raw.count), raw.baseAddress)
            guard started == SQLITE_OK, let iterator else { throw SQLiteError(code: started, message: "could not read a changeset") }
            defer { sqlite3changeset_finalize(iterator) }
            var result: [RowChange] = []
            while true {
                let rc = sqlite3changeset_next(iterator)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw SQLiteError(code: rc, message: "could not read a changeset") }
                result.append(Changeset.rowChange(iterator))
            }
            return result
        }
    }

    fileprivate static func rowChange(_ iterator: OpaquePointer) -> RowChange {
        var tableName: UnsafePointer<CChar>?
        var columns: Int32 = 0
        var op: Int32 = 0
        var indirect: Int32 = 0
        sqlite3changeset_op(iterator, &tableName, &columns, &op, &indirect)
        let operation: RowChange.Operation = op == SQLITE_INSERT ? .insert : op == SQLITE_DELETE ? .delete : .update
        func read(_ getter: (OpaquePointer, Int32, UnsafeMutablePointer<OpaquePointer?>) -> Int32) -> [SQLValue?] {
            (0..<columns).map { column in
                var value: OpaquePointer?
                guard getter(iterator, column, &value) == SQLITE_OK, let value else { return nil }
                switch sqlite3_value_type(value) {
                case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
                case SQLITE_TEXT: return .text(sqlite3_value_text(value).map { String(cString: $0) } ?? "")
                case SQLITE_NULL: return .null
                default: return .text("(\(sqlite3_value_bytes(value)) bytes)")
                }
            }
        }
        return RowChange(table: tableName.map { String(cString: $0) } ?? "",
                         operation: operation,
                         old: operation == .insert ? [] : read(sqlite3changeset_old),
                         new: operation == .delete ? [] : read(sqlite3changeset_new))
    }

    /// Applies the changeset to `database` inside the current transaction. A row that is no
    /// longer as the changeset expects means the data moved on without this history: the apply
    /// is aborted (the caller rolls back). Two cases are not conflicts: a row to delete that is
    /// already gone (a cascade removed it with its parent), and the rows of `meta` named in
    /// `highWaterKeys`, which only ever grow and are set by the caller afterwards. A row to delete
    /// that differs only in a column named `identityColumn` (sync's global id, which an undo of a
    /// delete may have renewed) is deleted all the same.
    func apply(to database: SQLiteDatabase, highWaterKeys: Set<String>, identityColumn: String? = nil) throws {
        guard !bytes.isEmpty else { return }
        let policy = ConflictPolicy(highWaterKeys: highWaterKeys)
        if let identityColumn {
            for table in try rows().map(\.table) where policy.identityColumns[table] == nil {
                let columns = try database.query("SELECT name FROM pragma_table_info(?)", .text(table)) { $0.string(0) }
                policy.identityColumns[table] = columns.firstIndex(of: identityColumn) ?? -1
            }
        }
        var copy = bytes
        let rc = copy.withUnsafeMutableBytes { raw in
            sqlite3changeset_apply(database.handle, Int32(raw.count), raw.baseAddress, nil, changesetConflict,
                                   Unmanaged.passUnretained(policy).toOpaque())
        }
        guard rc == SQLITE_OK else {
            if let conflict = policy.refused {
                throw ChangesetConflict(description: conflict)
            }
            throw database.error(rc)
        }
    }
}

/// A column of the row in the store that conflicts with a change; nil when it cannot be read
/// as one of the store's kinds of value (then nothing is taken as equal).
private func conflictingValue(_ iterator: OpaquePointer, _ column: Int) -> SQLValue? {
    var value: OpaquePointer?
    guard sqlite3changeset_conflict(iterator, Int32(column), &value) == SQLITE_OK, let value else { return nil }
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
    case SQLITE_TEXT: return .text(sqlite3_value_text(value).map { String(cString: $0) } ?? "")
    case SQLITE_NULL: return .null
    default: return nil
    }
}

/// True when the row in the store already holds every value the change sets.
private func rowAlreadyChanged(_ iterator: OpaquePointer, _ row: Changeset.RowChange) -> Bool {
    for (column, wanted) in row.new.enumerated() {
        guard let wanted else { continue }
        guard let current = conflictingValue(iterator, column), current == wanted else { return false }
    }
    return row.operation != .delete
}

/// True when the row in the store holds every value a delete expects but the one in `column`.
private func rowDiffersOnlyIn(_ column: Int, _ iterator: OpaquePointer, _ row: Changeset.RowChange) -> Bool {
    for (index, expected) in row.old.enumerated() where index != column {
        guard let current = conflictingValue(iterator, index), current == expected else { return false }
    }
    return true
}

/// The data no longer matches a history step (it was changed outside the history).
struct ChangesetConflict: Error, CustomStringConvertible {
    var description: String
}

private final class ConflictPolicy {
    let highWaterKeys: Set<String>
    /// Per table, the index of its identity column (-1: none).
    var identityColumns: [String: Int] = [:]
    var refused: String?
    init(highWaterKeys: Set<String>) { self.highWaterKeys = highWaterKeys }
}

private func changesetConflict(_ context: UnsafeMutableRawPointer?, _ kind: Int32, _ iterator: OpaquePointer?) -> Int32 {
    guard let context, let iterator else { return SQLITE_CHANGESET_ABORT }
    let policy = Unmanaged<ConflictPolicy>.fromOpaque(context).takeUnretainedValue()
    let row = Changeset.rowChange(iterator)
    if row.table == "meta", case .text(let key)? = row.value(0), policy.highWaterKeys.contains(key) {
        return SQLITE_CHANGESET_OMIT
    }
    if kind == SQLITE_CHANGESET_NOTFOUND && row.operation == .delete { return SQLITE_CHANGESET_OMIT }
    // A cascade of this same apply (ON DELETE SET NULL) already left the row as the change does.
    if (kind == SQLITE_CHANGESET_DATA || kind == SQLITE_CHANGESET_CONFLICT) && rowAlreadyChanged(iterator, row) {
        return SQLITE_CHANGESET_OMIT
    }
    if kind == SQLITE_CHANGESET_DATA, row.operation == .delete, let identity = policy.identityColumns[row.table], identity >= 0,
       rowDiffersOnlyIn(identity, iterator, row) {
        return SQLITE_CHANGESET_REPLACE
    }
    let what = kind == SQLITE_CHANGESET_NOTFOUND ? "is gone" : kind == SQLITE_CHANGESET_DATA ? "was changed"
        : kind == SQLITE_CHANGESET_CONFLICT ? "already exists" : "breaks a rule of the store"
    policy.refused = "a record of \(row.table) \(what) since that step"
    return SQLITE_CHANGESET_ABORT
}
